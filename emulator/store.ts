/**
 * Storage behind one interface: every resource kind in its own map, children indexed by parent, objects indexed by
 * the fields asked for (`byField`: role bindings by identity), each index kept by every write, so a write costs what
 * it changes; and optional persistence to a data file (./journal.ts): a snapshot plus a write-ahead journal, one
 * record per flush holding only what changed, so a write costs the same however much is stored. API tokens are
 * signed JWTs (./api-tokens.ts), so no token is stored: only the keys that sign them, in `meta`.
 */
import { DataFiles, type JournalRecord } from "./journal";
import { KINDS, withLastSeenTime, type Kind, type Meta, type StoredObject } from "./model";

/** Fewer bytes than any stored object takes in a journal record (a uid alone is 57 characters or more). */
const MIN_OBJECT_BYTES = 64;

export { KINDS, type Kind, type Meta, type StoredObject } from "./model";

/**
 * `T` when it is not a promise, else `never`: a callback typed to return `Synchronous<T>` does not compile when it
 * returns a promise (or is async), so nothing it awaits can run between its reads and its writes.
 */
export type Synchronous<T> = T & (T extends PromiseLike<unknown> ? never : unknown);

export interface Store {
  readonly version: number;
  meta: Meta;
  get(kind: Kind, uid: string): StoredObject | undefined;
  put(kind: Kind, object: StoredObject): void;
  delete(kind: Kind, uid: string): boolean;
  all(kind: Kind): IterableIterator<StoredObject>;
  count(kind: Kind): number;
  children(kind: Kind, parent: string): StoredObject[];
  /**
   * The objects of `kind` whose field `field` holds the string `value`, in no particular order: an index, like
   * `children`'s by parent, so a lookup costs what it finds however much is stored. The first lookup of a (kind,
   * field) builds it with one scan; from then on every put, delete, undone transaction, `clear` and load keeps it
   * current at the cost of the object written. An object is replaced whole by `put`, never changed in place once
   * stored, so the object a put replaces says which entry to drop.
   */
  byField(kind: Kind, field: string, value: string): StoredObject[];
  clear(): void;
  /** Counts a change that lives outside the objects (the clock moved), so the next flush writes it. */
  markChanged(): void;
  /**
   * Runs `change` all or nothing: if it throws, every object, token and meta change it made is undone and the
   * error rethrown. `change` is synchronous, by its type (a promise-returning one does not compile) and at run
   * time: nothing else runs between what it reads and what it writes.
   */
  transaction<T>(change: () => Synchronous<T>): T;
  /**
   * Makes every change since the last flush durable when a data file is configured (one journal record, written
   * before this returns: safe from any kill of the process; with `sync`, on disk), and does nothing otherwise or
   * when nothing changed.
   */
  flush(): void;
  /** Flushes, folds the journal into the snapshot and closes the data file. The store is not used afterwards. */
  close(): void;
}

export class MemoryStore implements Store {
  meta: Meta = {};
  private objects = new Map<Kind, Map<string, StoredObject>>();
  private childIndex = new Map<Kind, Map<string, Set<string>>>();
  /** The indexes `byField` was asked for: kind → field → value → uid → object. */
  private fieldIndex = new Map<Kind, Map<string, Map<string, Map<string, StoredObject>>>>();
  private changes = 0;
  private flushed = 0;
  /** Undo steps of the open transaction, newest last; undefined outside a transaction. */
  private journal: (() => void)[] | undefined;
  private files: DataFiles | undefined;
  /** Objects put or deleted since the last flush: the next journal record writes their current state. */
  private dirty = new Map<Kind, Set<string>>();
  /** Objects the open transaction made dirty (not dirty before it): clean again if it is undone. */
  private newlyDirty: [Set<string>, string][] | undefined;
  /** Each meta member as last written (JSON), to write only the members that changed. */
  private writtenMeta = new Map<string, { value: unknown; json: string }>();
  /** The next flush writes a whole snapshot: new data file, format-1 file to migrate, after `clear`. */
  private needsSnapshot = false;

  constructor(dataFile?: string, options: { sync?: boolean } = {}) {
    this.clear();
    this.changes = 0;
    this.needsSnapshot = false;
    if (dataFile === undefined) return;
    this.files = new DataFiles(dataFile, options.sync === true);
    const loaded = this.files.load();
    if (loaded !== undefined) {
      this.meta = loaded.meta;
      for (const kind of KINDS) for (const object of loaded.objects[kind] ?? []) this.put(kind, object);
      for (const record of loaded.records) this.replay(record);
      // An identity from a data file written before the emulator stored its lastSeenTime: filled in once, here.
      for (const identity of [...this.all("identities")]) {
        const filled = withLastSeenTime(identity);
        if (filled !== identity) this.put("identities", filled);
      }
    }
    this.dirty.clear();
    this.rememberMeta({ meta: this.meta as Record<string, unknown> });
    // No snapshot yet, or a format-1 file (the whole state rewritten per change) migrated on the first flush.
    this.needsSnapshot = !this.files.appendable;
    this.flushed = this.changes;
  }

  get version(): number {
    return this.changes;
  }

  get(kind: Kind, uid: string): StoredObject | undefined {
    return this.kindMap(kind).get(uid);
  }

  put(kind: Kind, object: StoredObject): void {
    const map = this.kindMap(kind);
    const previous = map.get(object.uid);
    this.journal?.push(() =>
      previous === undefined ? this.delete(kind, object.uid) : this.put(kind, previous),
    );
    if (previous !== undefined && previous.parent !== object.parent) this.unindex(kind, previous);
    map.set(object.uid, object);
    const index = this.childIndex.get(kind)!;
    let siblings = index.get(object.parent);
    if (siblings === undefined) index.set(object.parent, (siblings = new Set()));
    siblings.add(object.uid);
    this.reindexFields(kind, previous, object);
    this.markDirty(kind, object.uid);
    this.changes++;
  }

  delete(kind: Kind, uid: string): boolean {
    const map = this.kindMap(kind);
    const existing = map.get(uid);
    if (existing === undefined) return false;
    this.journal?.push(() => this.put(kind, existing));
    map.delete(uid);
    this.unindex(kind, existing);
    this.reindexFields(kind, existing, undefined);
    this.markDirty(kind, uid);
    this.changes++;
    return true;
  }

  all(kind: Kind): IterableIterator<StoredObject> {
    return this.kindMap(kind).values();
  }

  count(kind: Kind): number {
    return this.kindMap(kind).size;
  }

  children(kind: Kind, parent: string): StoredObject[] {
    const uids = this.childIndex.get(kind)!.get(parent);
    if (uids === undefined) return [];
    const map = this.kindMap(kind);
    return [...uids].map((uid) => map.get(uid)).filter((o): o is StoredObject => o !== undefined);
  }

  byField(kind: Kind, field: string, value: string): StoredObject[] {
    let indexes = this.fieldIndex.get(kind);
    if (indexes === undefined) this.fieldIndex.set(kind, (indexes = new Map()));
    let byValue = indexes.get(field);
    if (byValue === undefined) {
      indexes.set(field, (byValue = new Map()));
      for (const object of this.all(kind)) {
        const key = stringField(object, field);
        if (key !== undefined) addToFieldIndex(byValue, key, object);
      }
    }
    const found = byValue.get(value);
    return found === undefined ? [] : [...found.values()];
  }

  clear(): void {
    const [objects, childIndex, fieldIndex] = [this.objects, this.childIndex, this.fieldIndex];
    this.journal?.push(() => {
      [this.objects, this.childIndex, this.fieldIndex] = [objects, childIndex, fieldIndex];
    });
    this.objects = new Map();
    this.childIndex = new Map();
    // Rebuilt by the next lookup, from the little a reset leaves.
    this.fieldIndex = new Map();
    for (const kind of KINDS) {
      this.objects.set(kind, new Map());
      this.childIndex.set(kind, new Map());
    }
    // The signing keys and the clock survive a reset: tokens held by tests and clients stay verifiable, and time
    // never goes back.
    const { signingJwk, apiTokenJwk, clock } = this.meta;
    this.meta = {
      ...(signingJwk ? { signingJwk } : {}),
      ...(apiTokenJwk ? { apiTokenJwk } : {}),
      ...(clock ? { clock } : {}),
    };
    // Replaying deletions of everything would cost as much as a snapshot: write one.
    this.needsSnapshot = true;
    this.changes++;
  }

  markChanged(): void {
    this.changes++;
  }

  transaction<T>(change: () => Synchronous<T>): T {
    if (this.journal !== undefined) return change(); // nested: the outer transaction undoes everything
    const journal: (() => void)[] = [];
    const meta = structuredClone(this.meta);
    const newlyDirty: [Set<string>, string][] = [];
    this.journal = journal;
    this.newlyDirty = newlyDirty;
    try {
      const result: T = change();
      // A callback typed `unknown` slips past the type: a promise is refused (and its writes undone) here too.
      if (isPromiseLike(result)) throw new Error("a store transaction must be synchronous");
      return result;
    } catch (error) {
      this.journal = undefined;
      this.newlyDirty = undefined;
      for (const undo of journal.reverse()) undo();
      // What is undone is not written: the next journal record holds no trace of the failed request.
      for (const [uids, uid] of newlyDirty) uids.delete(uid);
      this.meta = meta;
      this.changes++; // caches keyed by version must not serve what was undone
      throw error;
    } finally {
      this.journal = undefined;
      this.newlyDirty = undefined;
    }
  }

  flush(): void {
    if (this.files === undefined || (this.flushed === this.changes && !this.needsSnapshot)) return;
    let dirtyCount = 0;
    for (const uids of this.dirty.values()) dirtyCount += uids.size;
    // A record that would push the journal past its bound is folded into a snapshot instead; a stored object
    // takes at least MIN_OBJECT_BYTES, so a seed of thousands goes to the snapshot without being serialized twice.
    if (this.needsSnapshot || dirtyCount * MIN_OBJECT_BYTES > this.files.room()) this.compact();
    else {
      const record = this.pendingRecord();
      if (
        record.put !== undefined ||
        record.delete !== undefined ||
        record.meta !== undefined ||
        record.unset
      )
        if (this.files.append(record)) this.rememberMeta(record);
        else this.compact();
    }
    this.dirty.clear();
    this.flushed = this.changes;
  }

  close(): void {
    if (this.files === undefined) return;
    this.flush();
    if (this.files.pending > 0) this.compact();
    this.files.close(true);
    this.files = undefined;
  }

  /** The objects and meta members changed since the last flush, as they are now. */
  private pendingRecord(): JournalRecord {
    const record: JournalRecord = {};
    for (const [kind, uids] of this.dirty) {
      for (const uid of uids) {
        const object = this.kindMap(kind).get(uid);
        if (object !== undefined) (record.put ??= []).push([kind, object]);
        else (record.delete ??= []).push([kind, uid]);
      }
    }
    // Meta members are replaced whole, never changed in place (the clock is a new object per flush; the keys are
    // set once): the same value as last written is unchanged, and only a new one is compared as JSON.
    const meta = this.meta as Record<string, unknown>;
    for (const [key, value] of Object.entries(meta)) {
      if (value === undefined) continue;
      const written = this.writtenMeta.get(key);
      if (written?.value === value) continue;
      const json = JSON.stringify(value);
      if (written?.json === json) this.writtenMeta.set(key, { value, json });
      else (record.meta ??= {})[key] = value;
    }
    for (const key of this.writtenMeta.keys()) if (meta[key] === undefined) (record.unset ??= []).push(key);
    return record;
  }

  /** Notes the meta members of an appended record as written. */
  private rememberMeta(record: JournalRecord): void {
    for (const [key, value] of Object.entries(record.meta ?? {}))
      if (value !== undefined) this.writtenMeta.set(key, { value, json: JSON.stringify(value) });
    for (const key of record.unset ?? []) this.writtenMeta.delete(key);
  }

  private compact(): void {
    const objects: Partial<Record<Kind, StoredObject[]>> = {};
    for (const kind of KINDS) objects[kind] = [...this.all(kind)];
    this.files!.compact({ meta: this.meta, objects });
    this.writtenMeta.clear();
    this.rememberMeta({ meta: this.meta as Record<string, unknown> });
    this.needsSnapshot = false;
  }

  private replay(record: JournalRecord): void {
    for (const [kind, object] of record.put ?? []) this.put(kind, object);
    for (const [kind, uid] of record.delete ?? []) this.delete(kind, uid);
    const meta = this.meta as Record<string, unknown>;
    Object.assign(meta, record.meta ?? {});
    for (const key of record.unset ?? []) delete meta[key];
  }

  private markDirty(kind: Kind, uid: string): void {
    if (this.files === undefined) return;
    let uids = this.dirty.get(kind);
    if (uids === undefined) this.dirty.set(kind, (uids = new Set()));
    if (this.newlyDirty !== undefined && !uids.has(uid)) this.newlyDirty.push([uids, uid]);
    uids.add(uid);
  }

  private kindMap(kind: Kind): Map<string, StoredObject> {
    return this.objects.get(kind)!;
  }

  private unindex(kind: Kind, object: StoredObject): void {
    const siblings = this.childIndex.get(kind)!.get(object.parent);
    siblings?.delete(object.uid);
    if (siblings?.size === 0) this.childIndex.get(kind)!.delete(object.parent);
  }

  /** Moves an object's entries in the `byField` indexes of its kind from `previous` to `next` (either absent). */
  private reindexFields(
    kind: Kind,
    previous: StoredObject | undefined,
    next: StoredObject | undefined,
  ): void {
    const indexes = this.fieldIndex.get(kind);
    if (indexes === undefined) return;
    for (const [field, byValue] of indexes) {
      const before = previous === undefined ? undefined : stringField(previous, field);
      const after = next === undefined ? undefined : stringField(next, field);
      if (before !== undefined && before !== after) {
        const objects = byValue.get(before);
        objects?.delete(previous!.uid);
        if (objects?.size === 0) byValue.delete(before);
      }
      if (after !== undefined) addToFieldIndex(byValue, after, next!);
    }
  }
}

/** The object's field `field` when it holds a string: what `byField` indexes it by. */
function stringField(object: StoredObject, field: string): string | undefined {
  const value = Object.hasOwn(object.fields, field) ? object.fields[field] : undefined;
  return typeof value === "string" ? value : undefined;
}

function addToFieldIndex(
  byValue: Map<string, Map<string, StoredObject>>,
  value: string,
  object: StoredObject,
): void {
  let objects = byValue.get(value);
  if (objects === undefined) byValue.set(value, (objects = new Map()));
  objects.set(object.uid, object);
}

function isPromiseLike(value: unknown): boolean {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

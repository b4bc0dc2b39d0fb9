/**
 * Storage behind one interface: every resource kind in its own map, children indexed by parent, and optional
 * persistence to a JSON file written atomically (temp file, then rename). API tokens are signed JWTs
 * (./api-tokens.ts), so no token is stored: only the keys that sign them, in `meta`.
 *
 * May import: node builtins only.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

export const KINDS = [
  "groups",
  "identities",
  "roles",
  "roleBindings",
  "identityProviders",
  "groupInvites",
  "accountAssociations",
  "repos",
  "tags",
  "advisories",
] as const;
export type Kind = (typeof KINDS)[number];

/** One stored resource. `fields` holds the resource members (including write-only ones such as secrets). */
export interface StoredObject {
  uid: string;
  /** The uid that `uidp.children_of` matches: the parent group ("" for roots); an account association's group. */
  parent: string;
  fields: Record<string, unknown>;
  createTime: string;
  updateTime?: string;
}

export interface Meta {
  orgUid?: string;
  bootstrapIdentityUid?: string;
  /** Kept so the CLI can print it again after a restart on the same data file (never committed, never logged). */
  bootstrapToken?: string;
  /** The OIDC issuer's private JWK, so ID tokens stay verifiable across restarts. */
  signingJwk?: Record<string, unknown>;
  /** The private JWK that signs API tokens, so they stay valid across restarts. */
  apiTokenJwk?: Record<string, unknown>;
  /** The emulator clock at the last write, and the real clock then: a restart resumes from there (clock.ts). */
  clock?: { emulatorMs: number; realMs: number };
}

export interface Store {
  readonly version: number;
  meta: Meta;
  get(kind: Kind, uid: string): StoredObject | undefined;
  put(kind: Kind, object: StoredObject): void;
  delete(kind: Kind, uid: string): boolean;
  all(kind: Kind): IterableIterator<StoredObject>;
  count(kind: Kind): number;
  children(kind: Kind, parent: string): StoredObject[];
  clear(): void;
  /** Counts a change that lives outside the objects (the clock moved), so the next flush writes it. */
  markChanged(): void;
  /**
   * Runs `change` all or nothing: if it throws, every object, token and meta change it made is undone and the
   * error rethrown. `change` must be synchronous (nothing else runs in between).
   */
  transaction<T>(change: () => T): T;
  /** Writes the data file if one is configured and something changed since the last flush. */
  flush(): void;
}

interface Snapshot {
  format: 1;
  meta: Meta;
  objects: Partial<Record<Kind, StoredObject[]>>;
}

export class MemoryStore implements Store {
  meta: Meta = {};
  private objects = new Map<Kind, Map<string, StoredObject>>();
  private childIndex = new Map<Kind, Map<string, Set<string>>>();
  private changes = 0;
  private flushed = 0;
  /** Undo steps of the open transaction, newest last; undefined outside a transaction. */
  private journal: (() => void)[] | undefined;

  constructor(private readonly dataFile?: string) {
    this.clear();
    this.changes = 0;
    if (dataFile !== undefined && existsSync(dataFile))
      this.load(JSON.parse(readFileSync(dataFile, "utf8")) as Snapshot);
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
    this.changes++;
  }

  delete(kind: Kind, uid: string): boolean {
    const map = this.kindMap(kind);
    const existing = map.get(uid);
    if (existing === undefined) return false;
    this.journal?.push(() => this.put(kind, existing));
    map.delete(uid);
    this.unindex(kind, existing);
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

  clear(): void {
    const [objects, childIndex] = [this.objects, this.childIndex];
    this.journal?.push(() => {
      [this.objects, this.childIndex] = [objects, childIndex];
    });
    this.objects = new Map();
    this.childIndex = new Map();
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
    this.changes++;
  }

  markChanged(): void {
    this.changes++;
  }

  transaction<T>(change: () => T): T {
    if (this.journal !== undefined) return change(); // nested: the outer transaction undoes everything
    const journal: (() => void)[] = [];
    const meta = structuredClone(this.meta);
    this.journal = journal;
    try {
      const result = change();
      if (result instanceof Promise) throw new Error("a store transaction must be synchronous");
      return result;
    } catch (error) {
      this.journal = undefined;
      for (const undo of journal.reverse()) undo();
      this.meta = meta;
      this.changes++; // caches keyed by version must not serve what was undone
      throw error;
    } finally {
      this.journal = undefined;
    }
  }

  flush(): void {
    if (this.dataFile === undefined || this.flushed === this.changes) return;
    const snapshot: Snapshot = {
      format: 1,
      meta: this.meta,
      objects: {},
    };
    for (const kind of KINDS) snapshot.objects[kind] = [...this.all(kind)];
    const temp = `${this.dataFile}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(snapshot), { mode: 0o600 });
    renameSync(temp, this.dataFile);
    this.flushed = this.changes;
  }

  private load(snapshot: Snapshot): void {
    if (snapshot.format !== 1)
      throw new Error(`data file ${this.dataFile}: unknown format ${String(snapshot.format)}`);
    this.meta = snapshot.meta ?? {};
    for (const kind of KINDS) for (const object of snapshot.objects[kind] ?? []) this.put(kind, object);
    this.flushed = this.changes;
  }

  private kindMap(kind: Kind): Map<string, StoredObject> {
    return this.objects.get(kind)!;
  }

  private unindex(kind: Kind, object: StoredObject): void {
    const siblings = this.childIndex.get(kind)!.get(object.parent);
    siblings?.delete(object.uid);
    if (siblings?.size === 0) this.childIndex.get(kind)!.delete(object.parent);
  }
}

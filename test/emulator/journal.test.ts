/**
 * The data file's journal (emulator/journal.ts) through the store: one record per flush, replay on load, a torn
 * last line dropped, corruption refused, stale journals ignored, compaction, and format-1 files migrated.
 */
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KINDS, MemoryStore, type StoredObject } from "../../emulator/store";
import { start } from "./helpers";

let dir: string;
let dataFile: string;
let counter = 0;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "emulator-journal-"));
  dataFile = join(dir, "state.json");
});
afterEach(() => {
  delete process.env.PLATFORM_EMULATOR_JOURNAL_BYTES;
  rmSync(dir, { recursive: true, force: true });
});

const group = (name: string, description = ""): StoredObject => ({
  uid: `org/${name}-${counter++}`,
  parent: "org",
  fields: { name, description },
  createTime: "2026-01-01T00:00:00.000Z",
});
const names = (store: MemoryStore): string[] =>
  [...store.all("groups")].map((g) => g.fields.name as string).sort();
const journal = (): string => readFileSync(`${dataFile}.journal`, "utf8");

describe("journal", () => {
  test("a flush appends one line holding only what changed; a reload replays it", () => {
    const store = new MemoryStore(dataFile);
    store.put("groups", group("first"));
    store.meta.orgUid = "org";
    store.flush(); // the first flush of a new file writes a snapshot
    const lines = (): string[] => journal().split("\n").filter(Boolean);
    expect(lines()).toHaveLength(1); // the header
    const second = group("second");
    store.put("groups", second);
    store.flush();
    store.flush(); // nothing changed: nothing written
    expect(lines()).toHaveLength(2);
    expect(lines()[1]).toContain('"second"');
    expect(lines()[1]).not.toContain('"first"');
    expect(lines()[1]).not.toContain("orgUid"); // meta members are written when they change
    store.delete("groups", second.uid);
    store.meta.bootstrapToken = "t";
    store.flush();

    const again = new MemoryStore(dataFile);
    expect(names(again)).toEqual(["first"]);
    expect(again.meta).toEqual({ orgUid: "org", bootstrapToken: "t" });
  });

  test("a failed transaction leaves the state as it was, on disk too", () => {
    const store = new MemoryStore(dataFile);
    const kept = group("kept");
    store.put("groups", kept);
    store.flush();
    expect(() =>
      store.transaction(() => {
        store.put("groups", { ...kept, fields: { name: "changed" } });
        store.put("groups", group("new"));
        store.meta.orgUid = "x";
        throw new Error("refused");
      }),
    ).toThrow("refused");
    const before = journal();
    store.flush();
    expect(journal()).toBe(before); // nothing written for what was undone
    const again = new MemoryStore(dataFile);
    expect(names(again)).toEqual(["kept"]);
    expect(again.meta.orgUid).toBeUndefined();
  });

  test("a torn last line is dropped and cut off; the next write appends after the last whole record", () => {
    const store = new MemoryStore(dataFile);
    store.put("groups", group("a"));
    store.flush();
    store.put("groups", group("b"));
    store.flush();
    const whole = statSync(`${dataFile}.journal`).size;
    appendFileSync(`${dataFile}.journal`, '0badc0de{"put":[["groups",{"uid":"org/torn"'); // a kill mid-append

    const again = new MemoryStore(dataFile);
    expect(names(again)).toEqual(["a", "b"]);
    expect(statSync(`${dataFile}.journal`).size).toBe(whole);
    again.put("groups", group("c"));
    again.flush();
    expect(names(new MemoryStore(dataFile))).toEqual(["a", "b", "c"]);
  });

  test("a bad line followed by good ones is corruption, refused with its line number", () => {
    const store = new MemoryStore(dataFile);
    store.put("groups", group("a"));
    store.flush();
    for (const name of ["b", "c"]) {
      store.put("groups", group(name));
      store.flush();
    }
    const lines = journal().split("\n");
    lines[1] = lines[1]!.replace('"b"', '"B"'); // the checksum no longer matches
    writeFileSync(`${dataFile}.journal`, lines.join("\n"));
    expect(() => new MemoryStore(dataFile)).toThrow(/line 2 is corrupt/);
  });

  test("a journal of an older generation (a compaction finished after it) is ignored", () => {
    const store = new MemoryStore(dataFile);
    store.put("groups", group("a"));
    store.flush();
    const removed = group("removed");
    store.put("groups", removed);
    store.flush();
    const stale = journal();
    store.delete("groups", removed.uid);
    store.clear(); // a reset writes a snapshot of the next generation
    store.put("groups", group("after"));
    store.flush();
    writeFileSync(`${dataFile}.journal`, stale); // as if killed between the snapshot's rename and the new journal
    expect(names(new MemoryStore(dataFile))).toEqual(["after"]);
  });

  test("past its bound the journal is compacted into a snapshot; a clean close leaves the snapshot alone", () => {
    process.env.PLATFORM_EMULATOR_JOURNAL_BYTES = "256";
    const store = new MemoryStore(dataFile);
    store.put("groups", group("g0"));
    store.flush();
    let generation = 1;
    for (let i = 1; i <= 20; i++) {
      store.put("groups", group(`g${i}`, "x".repeat(40)));
      store.flush();
      const snapshot = JSON.parse(readFileSync(dataFile, "utf8")) as { generation: number };
      generation = Math.max(generation, snapshot.generation);
      expect(statSync(`${dataFile}.journal`).size).toBeLessThanOrEqual(
        Math.max(256, statSync(dataFile).size),
      );
    }
    expect(generation).toBeGreaterThan(2);
    expect(names(new MemoryStore(dataFile))).toHaveLength(21);
    store.close();
    expect(existsSync(`${dataFile}.journal`)).toBe(false);
    const closed = JSON.parse(readFileSync(dataFile, "utf8")) as {
      format: number;
      objects: { groups: unknown[] };
    };
    expect(closed.format).toBe(2);
    expect(closed.objects.groups).toHaveLength(21);
  });

  test("a format-1 data file (the whole state per write) loads and is migrated on the first flush", () => {
    const old = group("old");
    writeFileSync(
      dataFile,
      JSON.stringify({
        format: 1,
        meta: { orgUid: "org", clock: { emulatorMs: 5, realMs: 6 } },
        objects: { groups: [old] },
      }),
    );
    const store = new MemoryStore(dataFile);
    expect(names(store)).toEqual(["old"]);
    expect(store.meta.clock).toEqual({ emulatorMs: 5, realMs: 6 });
    store.flush(); // the emulator's start flushes once
    expect((JSON.parse(readFileSync(dataFile, "utf8")) as { format: number }).format).toBe(2);
    expect(existsSync(`${dataFile}.journal`)).toBe(true);
    store.put("groups", group("new"));
    store.flush();
    expect(names(new MemoryStore(dataFile))).toEqual(["new", "old"]);
  });

  test("an emulator's format-1 data file keeps its objects, org, token and keys, migrated on start", async () => {
    const first = await start({ dataFile });
    const org = first.emulator.orgUid;
    const made = (await first.post(`/iam/v2beta1/groups/${org}`, { name: "before", description: "v1" })).body;
    await first.emulator.close();
    // What the previous version's flush wrote: format 1, meta, every kind's objects, no generation, no journal.
    const snapshot = JSON.parse(readFileSync(dataFile, "utf8")) as {
      meta: unknown;
      objects: Record<string, unknown>;
    };
    const objects = Object.fromEntries(KINDS.map((kind) => [kind, snapshot.objects[kind] ?? []]));
    writeFileSync(dataFile, JSON.stringify({ format: 1, meta: snapshot.meta, objects }));

    const second = await start({ dataFile });
    try {
      expect(second.emulator.orgUid).toBe(org);
      expect(second.emulator.token).toBe(first.emulator.token);
      expect((await second.get(`/iam/v2beta1/groups/${made.uid}`)).body).toEqual(made);
      expect((JSON.parse(readFileSync(dataFile, "utf8")) as { format: number }).format).toBe(2);
      expect(existsSync(`${dataFile}.journal`)).toBe(true);
    } finally {
      await second.emulator.close();
    }
  }, 30_000);

  test("an identity from a data file without its lastSeenTime reads and sorts by its creation time", async () => {
    const first = await start({ dataFile });
    const org = first.emulator.orgUid;
    const made: string[] = [];
    for (const subject of ["a", "b", "c"]) {
      const body = { name: `id-${subject}`, claimMatch: { issuer: "https://issuer.example", subject } };
      made.push((await first.post(`/iam/v2beta1/identities/${org}`, body)).body.uid);
      first.emulator.clock.advance(1_000);
    }
    await first.emulator.close();
    // What a version that did not store lastSeenTime wrote: none on the first and last; the middle one as written
    // since (its creation time, never federated).
    const snapshot = JSON.parse(readFileSync(dataFile, "utf8")) as {
      meta: unknown;
      objects: Record<string, StoredObject[] | undefined>;
    };
    const objects = Object.fromEntries(KINDS.map((kind) => [kind, snapshot.objects[kind] ?? []]));
    for (const identity of objects.identities!)
      if (identity.uid !== made[1]) delete identity.fields.lastSeenTime;
    writeFileSync(dataFile, JSON.stringify({ format: 1, meta: snapshot.meta, objects }));

    const second = await start({ dataFile });
    try {
      for (const order of ["last_seen_time", "last_seen_time desc"]) {
        const listed = (
          await second.get(
            `/iam/v2beta1/identities?uidp.children_of=${org}&order_by=${encodeURIComponent(order)}`,
          )
        ).body.identities as { uid: string; createTime: string; lastSeenTime: string }[];
        const ascending = listed.map((i) => i.uid);
        if (order.endsWith("desc")) ascending.reverse();
        expect([order, ascending]).toEqual([order, made]);
        for (const identity of listed) {
          expect(identity.lastSeenTime).toBe(identity.createTime);
          expect((await second.get(`/iam/v2beta1/identities/${identity.uid}`)).body).toEqual(identity);
        }
      }
    } finally {
      await second.emulator.close();
    }
  }, 30_000);

  test("an unknown format is refused", () => {
    writeFileSync(dataFile, JSON.stringify({ format: 3 }));
    expect(() => new MemoryStore(dataFile)).toThrow(/unknown format 3/);
  });
});

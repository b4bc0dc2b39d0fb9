/**
 * The archive writers of scripts/release.js (`npm run release`): their bytes depend on the entries alone, not on
 * the order they come in, and the system's own tar and unzip read back exactly those files, modes and times.
 * test/e2e/release.e2e.test.ts builds the whole release twice and installs it.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import * as fflate from "fflate";

const plugin = require("../scripts/build-plugin.js") as { LAUNCHER: string };
const release = require("../scripts/release.js") as {
  tarGz(entries: (Entry & { member?: Buffer })[], mtime: number): Promise<Buffer>;
  zip(entries: Omit<Entry, "mode">[], mtime: number): Buffer;
};

interface Entry {
  name: string;
  data: Buffer;
  mode: number;
}

const mtime = 1_763_900_000; // 2025-11-23T12:13:20Z

/** Distinct names (some in subdirectories), each with content and an executable bit or not. */
const entries = fc
  .uniqueArray(fc.stringMatching(/^[a-z][a-z0-9_.-]{0,12}(\/[a-z][a-z0-9_.-]{0,12})?$/), {
    minLength: 1,
    maxLength: 6,
  })
  // A name must not also be a directory of another one.
  .filter((names) => names.every((a) => names.every((b) => !b.startsWith(`${a}/`))))
  .chain((names) =>
    fc.tuple(
      ...names.map((name) =>
        fc.record({
          name: fc.constant(name),
          data: fc.uint8Array({ maxLength: 2000 }).map((bytes) => Buffer.from(bytes)),
          mode: fc.constantFrom(0o644, 0o755),
        }),
      ),
    ),
  );

let scratch: string;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "release-archives-"));
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

function unpackInto(archive: Buffer, name: string, command: (file: string, dir: string) => void): string {
  const dir = fs.mkdtempSync(path.join(scratch, "x-"));
  const file = path.join(dir, name);
  fs.writeFileSync(file, archive);
  const out = path.join(dir, "out");
  fs.mkdirSync(out);
  command(file, out);
  return out;
}

test("tarGz: the same bytes whatever the entries' order; tar reads back files, modes, uid 0 and the time", async () => {
  await fc.assert(
    fc.asyncProperty(entries, fc.infiniteStream(fc.nat()), async (list, order) => {
      const shuffled = [...list].sort(() => (order.next().value % 3) - 1);
      const archive = await release.tarGz(list, mtime);
      expect((await release.tarGz(shuffled, mtime)).equals(archive)).toBe(true);
      expect(archive.readUInt32LE(4)).toBe(0); // gzip: no mtime
      expect(archive[3]! & 0x08).toBe(0); // gzip: no file name

      const out = unpackInto(archive, "a.tar.gz", (file, dir) =>
        execFileSync("tar", ["-xzf", file, "-C", dir]),
      );
      for (const entry of list) {
        const stat = fs.statSync(path.join(out, entry.name));
        expect(fs.readFileSync(path.join(out, entry.name)).equals(entry.data)).toBe(true);
        expect(stat.mode & 0o777).toBe(entry.mode);
        expect(Math.floor(stat.mtimeMs / 1000)).toBe(mtime);
      }
      const listing = execFileSync("tar", ["-tvzf", "-", "--numeric-owner"], {
        input: archive,
        encoding: "utf8",
      });
      const names = listing
        .trim()
        .split("\n")
        .map((line) => line.split(/\s+/).pop());
      expect(names).toEqual(list.map((e) => e.name).sort());
      for (const line of listing.trim().split("\n")) expect(line).toMatch(/^-\S+ 0\/0 /);
    }),
    { seed: 22, numRuns: 25 },
  );
});

test("tarGz: an entry given as its own gzip member (a runtime compressed once) reads back as the others do", async () => {
  /** What scripts/node-runtimes.js's tarMember makes: the data padded to a 512-byte block, gzipped on its own. */
  const member = (data: Buffer) =>
    Buffer.from(
      fflate.gzipSync(Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]), {
        level: 6,
        mtime: 0,
      }),
    );
  await fc.assert(
    fc.asyncProperty(entries, fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }), async (list, own) => {
      const withMembers = list.map((entry, i) => (own[i] ? { ...entry, member: member(entry.data) } : entry));
      const archive = await release.tarGz(withMembers, mtime);
      expect((await release.tarGz([...withMembers].reverse(), mtime)).equals(archive)).toBe(true);
      // Several gzip members, one stream: gzip itself decompresses it to the tar of the same entries.
      const plain = await release.tarGz(list, mtime);
      expect(
        execFileSync("gzip", ["-dc"], { input: archive }).equals(
          execFileSync("gzip", ["-dc"], { input: plain }),
        ),
      ).toBe(true);
      const out = unpackInto(archive, "m.tar.gz", (file, dir) =>
        execFileSync("tar", ["-xzf", file, "-C", dir]),
      );
      for (const entry of list) {
        expect(fs.readFileSync(path.join(out, entry.name)).equals(entry.data)).toBe(true);
        expect(fs.statSync(path.join(out, entry.name)).mode & 0o777).toBe(entry.mode);
      }
    }),
    { seed: 51, numRuns: 25 },
  );
});

test("zip: the same bytes whatever the entries' order; unzip tests it and reads back every file", () => {
  fc.assert(
    fc.property(entries, fc.infiniteStream(fc.nat()), (list, order) => {
      const shuffled = [...list].sort(() => (order.next().value % 3) - 1);
      const archive = release.zip(list, mtime);
      expect(release.zip(shuffled, mtime).equals(archive)).toBe(true);

      const out = unpackInto(archive, "a.zip", (file, dir) => {
        execFileSync("unzip", ["-tq", file]); // CRCs and structure
        execFileSync("unzip", ["-q", file, "-d", dir]);
      });
      for (const entry of list) {
        expect(fs.readFileSync(path.join(out, entry.name)).equals(entry.data)).toBe(true);
      }
    }),
    { seed: 22, numRuns: 25 },
  );
});

test("zip: the same bytes in every time zone, its times the UTC wall clock of mtime", () => {
  const script = `
    const release = require(${JSON.stringify(path.resolve(__dirname, "../scripts/release.js"))});
    const zip = release.zip([{ name: "a/b.txt", data: Buffer.from("b") }], ${mtime});
    process.stdout.write(zip.toString("base64"));
  `;
  const inZone = (tz: string) =>
    execFileSync(process.execPath, ["-e", script], { env: { ...process.env, TZ: tz }, encoding: "utf8" });
  const utc = inZone("UTC");
  for (const tz of ["America/New_York", "Asia/Kolkata", "Pacific/Chatham"]) expect(inZone(tz)).toBe(utc);
  const file = path.join(fs.mkdtempSync(path.join(scratch, "tz-")), "a.zip");
  fs.writeFileSync(file, Buffer.from(utc, "base64"));
  // zipinfo -T: yyyymmdd.hhmmss as the archive stores it (DOS times have 2 s steps; 12:13:20 is even).
  expect(execFileSync("zipinfo", ["-T", file], { encoding: "utf8" })).toContain("20251123.121320 a/b.txt");
});

test("the launcher runs the node beside it on the bundle beside it: an empty PATH, spaces, a link to it", () => {
  const dir = path.join(fs.mkdtempSync(path.join(scratch, "launcher-")), "a dir with spaces");
  fs.mkdirSync(dir);
  const launcher = path.join(dir, "pulumi-resource-platform");
  fs.writeFileSync(launcher, plugin.LAUNCHER, { mode: 0o755 });
  // A stand-in for node: prints how it was called (/bin/sh's printf is a builtin: no PATH needed).
  fs.writeFileSync(path.join(dir, "node"), '#!/bin/sh\nprintf "%s|" "$0" "$@"\n', { mode: 0o755 });
  const elsewhere = fs.mkdtempSync(path.join(scratch, "bin-"));
  fs.symlinkSync(launcher, path.join(elsewhere, "relative-link-target"));
  fs.symlinkSync("relative-link-target", path.join(elsewhere, "pulumi-resource-platform"));
  const expected = `${dir}/node|${dir}/pulumi-resource-platform.js|127.0.0.1:1|two words|`;
  for (const command of [launcher, path.join(elsewhere, "pulumi-resource-platform")]) {
    const printed = execFileSync(command, ["127.0.0.1:1", "two words"], {
      env: { PATH: "" },
      encoding: "utf8",
    });
    expect(printed).toBe(expected);
  }
});

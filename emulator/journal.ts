/**
 * The files behind `--data FILE`: a snapshot (FILE, one JSON document) and a write-ahead journal (FILE.journal,
 * one line per flushed change), so a write costs one appended record instead of a rewrite of the whole state.
 *
 * - A journal line is `<crc32 of the JSON, 8 hex digits><JSON>\n`. Its first line names the snapshot generation it
 *   continues; a journal of another generation is stale (a compaction finished after it was written) and ignored.
 * - `append` writes one record with one write(2) before returning, and the caller acknowledges the request only
 *   then: the record is in the operating system's hands, so no kill of the process (SIGKILL included) can lose it.
 *   With `sync`, `append` also waits for the disk (fdatasync), so an operating-system crash or a power cut cannot
 *   lose it either; that costs one disk flush per write (milliseconds on most disks).
 * - `compact` writes a new snapshot (next generation) to a temp file, fsyncs it, renames it over FILE, fsyncs the
 *   directory, then starts an empty journal of that generation the same way. A kill at any point leaves either the
 *   old snapshot and its journal or the new snapshot (with a stale journal, ignored): both hold every appended
 *   record.
 * - On load, a torn last line (a kill during an append, before the acknowledgement) is dropped and cut off the
 *   file; a bad line followed by good ones is corruption, not a torn write, and refused with the line's number.
 */
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { crc32 } from "node:zlib";
import type { Kind, Meta, StoredObject } from "./model";

/** The snapshot as written since the journal exists; format 1 (no journal, no generation) is migrated on load. */
export interface Snapshot {
  format: 2;
  generation: number;
  meta: Meta;
  objects: Partial<Record<Kind, StoredObject[]>>;
}

/** One flushed change: objects written (whole) and deleted, meta members set and removed. Replay is idempotent. */
export interface JournalRecord {
  put?: [Kind, StoredObject][];
  delete?: [Kind, string][];
  meta?: Record<string, unknown>;
  unset?: string[];
}

interface Header {
  journal: 1;
  generation: number;
}

export interface Loaded {
  meta: Meta;
  objects: Partial<Record<Kind, StoredObject[]>>;
  records: JournalRecord[];
}

/**
 * A journal longer than this (and than the last snapshot) is compacted into a new snapshot. The environment
 * variable PLATFORM_EMULATOR_JOURNAL_BYTES lowers it (tests that kill the emulator during compactions).
 */
export const MIN_COMPACTION_BYTES = 4 * 1024 * 1024;

function compactionBytes(): number {
  const configured = Number(process.env.PLATFORM_EMULATOR_JOURNAL_BYTES);
  return Number.isInteger(configured) && configured > 0 ? configured : MIN_COMPACTION_BYTES;
}

function line(value: unknown): Buffer {
  const json = JSON.stringify(value);
  const body = Buffer.from(json, "utf8");
  const out = Buffer.allocUnsafe(body.length + 9);
  out.write(crc32(body).toString(16).padStart(8, "0"), 0, "latin1");
  body.copy(out, 8);
  out[out.length - 1] = 0x0a;
  return out;
}

/** Parses one line (without its newline); undefined when the checksum or the JSON is wrong. */
function parseLine(raw: Buffer): unknown {
  if (raw.length < 8) return undefined;
  const body = raw.subarray(8);
  if (raw.toString("latin1", 0, 8) !== crc32(body).toString(16).padStart(8, "0")) return undefined;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** write(2) may write less than asked: loop until all of `data` is written. */
function writeAll(fd: number, data: Buffer): void {
  for (let offset = 0; offset < data.length;) offset += writeSync(fd, data, offset, data.length - offset);
}

function syncDirectory(path: string): void {
  const fd = openSync(dirname(path), "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes `content` to `path` atomically and durably: temp file, fsync, rename, fsync of the directory. */
function writeDurably(path: string, content: Buffer): void {
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, "w", 0o600);
  try {
    writeAll(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  syncDirectory(path);
}

export class DataFiles {
  readonly journalPath: string;
  /** The generation of the snapshot on disk; undefined before the first snapshot of this format. */
  private generation: number | undefined;
  private fd: number | undefined;
  private bytes = 0;
  private records = 0;
  private snapshotBytes = 0;
  private readonly minCompactionBytes = compactionBytes();

  constructor(
    readonly path: string,
    /** fdatasync every appended record before `append` returns (snapshots are always fsynced). */
    private readonly sync = false,
  ) {
    this.journalPath = `${path}.journal`;
  }

  /** Journal records appended since the last snapshot. */
  get pending(): number {
    return this.records;
  }

  /** Whether the next record can be appended (a journal of the snapshot's generation is open). */
  get appendable(): boolean {
    return this.fd !== undefined;
  }

  /**
   * Reads the snapshot and the records of its journal. Opens the journal for appending when it continues the
   * snapshot; otherwise the caller must `compact` before the next `append`.
   */
  load(): Loaded | undefined {
    if (!existsSync(this.path)) return undefined;
    const snapshotText = readFileSync(this.path, "utf8");
    this.snapshotBytes = Buffer.byteLength(snapshotText);
    const snapshot = JSON.parse(snapshotText) as Omit<Partial<Snapshot>, "format"> & { format?: unknown };
    if (snapshot.format === 1)
      return { meta: snapshot.meta ?? {}, objects: snapshot.objects ?? {}, records: [] };
    if (snapshot.format !== 2 || typeof snapshot.generation !== "number")
      throw new Error(`data file ${this.path}: unknown format ${String(snapshot.format)}`);
    this.generation = snapshot.generation;
    const records = existsSync(this.journalPath) ? this.readJournal(snapshot.generation) : undefined;
    if (records === undefined) this.startJournal();
    return { meta: snapshot.meta ?? {}, objects: snapshot.objects ?? {}, records: records ?? [] };
  }

  /** Bytes the journal may still take before it must be compacted. */
  room(): number {
    return Math.max(this.minCompactionBytes, this.snapshotBytes) - this.bytes;
  }

  /**
   * Appends one record and returns true once it is written (and on disk, with `sync`); returns false without writing when the record would
   * push the journal past its bound (the larger of MIN_COMPACTION_BYTES and the snapshot): then compact instead.
   */
  append(record: JournalRecord): boolean {
    if (this.fd === undefined) throw new Error("the journal is not open: compact first");
    const data = line(record);
    if (data.length > this.room()) return false;
    writeAll(this.fd, data);
    if (this.sync) fdatasyncSync(this.fd);
    this.bytes += data.length;
    this.records++;
    return true;
  }

  /** Writes `snapshot` (meta and objects) as the next generation and starts its empty journal. */
  compact(state: { meta: Meta; objects: Partial<Record<Kind, StoredObject[]>> }): void {
    const generation = (this.generation ?? 0) + 1;
    const text = Buffer.from(
      JSON.stringify({ format: 2, generation, meta: state.meta, objects: state.objects }),
      "utf8",
    );
    writeDurably(this.path, text);
    this.generation = generation;
    this.snapshotBytes = text.length;
    this.startJournal();
  }

  /** Closes the journal; with `removeJournal`, deletes it too (the snapshot must hold everything). */
  close(removeJournal: boolean): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    if (removeJournal) {
      rmSync(this.journalPath, { force: true });
      syncDirectory(this.journalPath);
    }
  }

  /** Replaces the journal by an empty one of the current generation and opens it for appending. */
  private startJournal(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    const header = line({ journal: 1, generation: this.generation } satisfies Partial<Header>);
    writeDurably(this.journalPath, header);
    this.fd = openSync(this.journalPath, "a");
    this.bytes = header.length;
    this.records = 0;
  }

  /**
   * The records of the journal when it continues snapshot `generation` (undefined when it does not: stale or
   * unreadable header). Opens it for appending after cutting off a torn last line.
   */
  private readJournal(generation: number): JournalRecord[] | undefined {
    const data = readFileSync(this.journalPath);
    const records: JournalRecord[] = [];
    let start = 0;
    let valid = 0;
    let lineNumber = 0;
    let torn = false;
    while (start < data.length) {
      const end = data.indexOf(0x0a, start);
      lineNumber++;
      const parsed = end === -1 ? undefined : parseLine(data.subarray(start, end));
      if (parsed === undefined) {
        // The last line may be torn: a kill during its append, so it was never acknowledged.
        const rest = end === -1 ? -1 : data.indexOf(0x0a, end + 1);
        if (end !== -1 && rest !== -1)
          throw new Error(
            `data file journal ${this.journalPath}: line ${lineNumber} is corrupt (its checksum does not match) ` +
              "and later lines follow, so it is not a write torn by a crash; refusing to start without its writes " +
              "(restore the file, or move it away to start from the snapshot alone).",
          );
        torn = true;
        break;
      }
      if (lineNumber === 1) {
        const header = parsed as Partial<Header>;
        if (header.journal !== 1 || header.generation !== generation) return undefined;
      } else records.push(parsed as JournalRecord);
      start = end + 1;
      valid = start;
    }
    if (valid === 0) return undefined;
    const fd = openSync(this.journalPath, "r+");
    if (torn) {
      ftruncateSync(fd, valid);
      fsyncSync(fd);
    }
    closeSync(fd);
    this.fd = openSync(this.journalPath, "a");
    this.bytes = valid;
    this.records = records.length;
    return records;
  }
}

/**
 * The emulator's clock: real time from a chosen start, moved forward by `advance` (token expiry, page tokens).
 *
 * It never goes back: `now()` is monotonic (createTime only grows, also if the machine's clock steps back), and a
 * restart on the same data file resumes from the saved reading (`state()` → `resume`), so an advance survives a
 * restart and an expired token stays expired. Every reading stays before MAX_TIME_MS (RFC 3339 needs a 4-digit
 * year).
 */
import { MAX_TIME_MS } from "./bounds";

export interface Clock {
  now(): Date;
  /** Moves the clock forward; throws a RangeError beyond MAX_TIME_MS or for a negative / non-integer ms. */
  advance(ms: number): void;
  /** The reading to save, paired with the real time it was taken at. */
  state(): { emulatorMs: number; realMs: number };
}

export function createClock(
  start?: Date | string | number,
  resume?: { emulatorMs: number; realMs: number },
): Clock {
  const realStart = Date.now();
  let base: number;
  let floor = -Infinity;
  if (resume !== undefined && Number.isFinite(resume.emulatorMs) && Number.isFinite(resume.realMs)) {
    // Continue as if the emulator had kept running, never below the saved reading.
    base = resume.emulatorMs + Math.max(0, realStart - resume.realMs);
    floor = resume.emulatorMs;
  } else {
    base = start === undefined ? realStart : new Date(start).getTime();
  }
  if (!Number.isFinite(base) || base < 0 || base > MAX_TIME_MS)
    throw new RangeError(`clock start ${String(start)} is not a date before the year 10000`);
  const read = (): number => {
    const value = Math.min(MAX_TIME_MS, Math.max(floor, base + (Date.now() - realStart)));
    floor = value;
    return value;
  };
  return {
    now: () => new Date(read()),
    advance: (ms: number) => {
      if (!Number.isInteger(ms) || ms < 0)
        throw new RangeError("clock.advance needs a non-negative integer ms");
      if (read() + ms > MAX_TIME_MS)
        throw new RangeError("clock.advance would move the clock past the year 9999");
      base += ms;
    },
    state: () => ({ emulatorMs: read(), realMs: Date.now() }),
  };
}

/** RFC 3339 UTC with milliseconds. */
export function timestamp(clock: Clock): string {
  return clock.now().toISOString();
}

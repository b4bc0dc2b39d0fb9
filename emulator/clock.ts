/** The emulator's clock: real time from a chosen start, moved forward by `advance` (token expiry, page tokens). */
export interface Clock {
  now(): Date;
  advance(ms: number): void;
}

export function createClock(start?: Date | string | number): Clock {
  const realStart = Date.now();
  let base = start === undefined ? realStart : new Date(start).getTime();
  if (!Number.isFinite(base)) throw new Error(`clock start ${String(start)} is not a date`);
  return {
    now: () => new Date(base + (Date.now() - realStart)),
    advance: (ms: number) => {
      if (!Number.isFinite(ms) || ms < 0) throw new Error("clock.advance needs a non-negative number of ms");
      base += ms;
    },
  };
}

/** RFC 3339 UTC with milliseconds. */
export function timestamp(clock: Clock): string {
  return clock.now().toISOString();
}

/**
 * Friendly durations ("72h", "1h30m"), parsed once for the GroupInvite declaration and the policy pack (which
 * must not load zod).
 */
const UNIT_SECONDS: Record<string, number> = { d: 86_400, h: 3_600, m: 60, s: 1 };
const DURATION = /^(?:\d+(?:\.\d+)?[dhms])+$/;

/**
 * Seconds in a friendly duration: "72h", "90m", "1h30m", "3600s", "1d", "86400.5s". Undefined when the
 * text is not a duration.
 */
export function durationSeconds(text: string): number | undefined {
  const compact = text.trim();
  if (!DURATION.test(compact)) return undefined;
  let seconds = 0;
  for (const [, amount, unit] of compact.matchAll(/(\d+(?:\.\d+)?)([dhms])/g)) {
    seconds += Number(amount) * UNIT_SECONDS[unit!]!;
  }
  return seconds;
}

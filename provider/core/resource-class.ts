/**
 * Helpers for the resource classes (program side).
 *
 * May import: nothing.
 */

/**
 * Every output must be a key of the props handed to the engine, or the class's output stays undefined:
 * missing keys are added as undefined.
 */
export function withOutputKeys(args: object, keys: readonly string[]): Record<string, unknown> {
  const props: Record<string, unknown> = { ...args };
  for (const key of keys) if (!(key in props)) props[key] = undefined;
  return props;
}

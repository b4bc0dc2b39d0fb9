/**
 * Like changes said once: changes that differ only in the names of the identity and the group (the same role
 * gained whole, the same kinds of identity and group, both new or not, the identity under the group or not) are one
 * line with their count and the first few names, so that a plan or a comparison of a thousand new folders reads in a
 * screen. What makes two changes alike is the caller's (`shape`: undefined for a change said alone, as every
 * privileged one is); the grouping is here, once, for the text and Markdown of `plan` and `review --since`. The JSON
 * keeps every change: nothing is dropped, only said together (`expanded` gives back every change).
 */

/** How many like changes make a group; fewer are said one by one. */
export const ALIKE_AT = 4;

/** How many of a group's changes are named; the rest are counted. */
export const ALIKE_NAMED = 3;

/** A change said alone, or like changes said together (at least ALIKE_AT, all of one shape). */
export type Said<T> = { alone: T } | { shape: string; alike: T[] };

/**
 * The changes in their order, like ones together where a shape holds at least `least` of them (at the place of the
 * first); the order of each group's changes is theirs in `items`.
 */
export function sayAlike<T>(
  items: readonly T[],
  shape: (item: T) => string | undefined,
  least = ALIKE_AT,
): Said<T>[] {
  const shapes = items.map(shape);
  const members = new Map<string, T[]>();
  items.forEach((item, i) => {
    const key = shapes[i];
    if (key === undefined) return;
    const list = members.get(key);
    if (list === undefined) members.set(key, [item]);
    else list.push(item);
  });
  const out: Said<T>[] = [];
  const placed = new Set<string>();
  items.forEach((item, i) => {
    const key = shapes[i];
    const group = key === undefined ? undefined : members.get(key);
    if (key === undefined || group === undefined || group.length < least)
      return void out.push({ alone: item });
    if (placed.has(key)) return;
    placed.add(key);
    out.push({ shape: key, alike: group });
  });
  return out;
}

/** Every change of what `sayAlike` said, each once. */
export function expanded<T>(said: readonly Said<T>[]): T[] {
  return said.flatMap((s) => ("alone" in s ? [s.alone] : s.alike));
}

/** "a, b, c and 294 more": the first ALIKE_NAMED of a group named by `name`, the rest counted. */
export function firstNames<T>(items: readonly T[], name: (item: T) => string, more = "more"): string {
  const named = items.slice(0, ALIKE_NAMED).map(name);
  const rest = items.length - named.length;
  return rest > 0 ? `${named.join(", ")} and ${rest} ${more}` : named.join(", ");
}

/**
 * The service's hierarchical uids (uidp): a child's uid is its parent's uid, "/", and its own segment, so the group
 * an object lives in is read from its uid alone. The one place a uid is taken apart, for every layer (client,
 * provider, emulator, commands): splitting one by hand elsewhere fails `npm run lint` (eslint.config.js).
 *
 * A root uid (an organization, a root-level user) has no parent: `parentOf` answers `undefined` for it, and so does
 * every helper here that walks up; a caller that needs a word for "no group" says so itself.
 */

/** The parent of a child uid (`a/b/c` → `a/b`); undefined for a root uid (an organization, a root-level user). */
export function parentOf(uid: string): string | undefined {
  const cut = uid.lastIndexOf("/");
  return cut < 0 ? undefined : uid.slice(0, cut);
}

/** Is `uid` a root uid (an organization, a root-level user, a built-in role): one with no parent? */
export function isRoot(uid: string): boolean {
  return !uid.includes("/");
}

/** The root uid the object lives under, the organization for a group's object (`a/b/c` → `a`; `a` → `a`). */
export function rootOf(uid: string): string {
  const cut = uid.indexOf("/");
  return cut < 0 ? uid : uid.slice(0, cut);
}

/** How far below its root a uid is: 0 for an organization, 1 for its folder or identity, ... */
export function depthOf(uid: string): number {
  let depth = 0;
  for (let at = uid.indexOf("/"); at >= 0; at = uid.indexOf("/", at + 1)) depth++;
  return depth;
}

/** The uid's segments, root first (`a/b/c` → `["a", "b", "c"]`): what a URL path encodes one by one. */
export function segmentsOf(uid: string): string[] {
  return uid.split("/");
}

/** "a/b/c" → ["a", "a/b", "a/b/c"]. */
export function ancestorsOrSelf(uid: string): string[] {
  const segments = segmentsOf(uid);
  return segments.map((_, i) => segments.slice(0, i + 1).join("/"));
}

/** The uids above `uid`, nearest first ("a/b/c" → ["a/b", "a"]); none for a root uid. */
export function ancestorsOf(uid: string): string[] {
  const above: string[] = [];
  for (let parent = parentOf(uid); parent !== undefined; parent = parentOf(parent)) above.push(parent);
  return above;
}

/** The longest uid at or above every one of `uids` ("a/b/c", "a/b/d" → "a/b"); "" when they share no root. */
export function commonAncestorOf(uids: readonly string[]): string {
  const segments = uids.map(segmentsOf);
  const shared: string[] = [];
  for (let i = 0; segments.every((s) => s[i] !== undefined && s[i] === segments[0]![i]); i++)
    shared.push(segments[0]![i]!);
  return shared.join("/");
}

/** Is `uid` strictly below `ancestor` (a descendant, not itself)? */
export function isBelow(uid: string, ancestor: string): boolean {
  return uid.length > ancestor.length + 1 && uid.startsWith(ancestor) && uid[ancestor.length] === "/";
}

/** Is `groupUid` `ancestor` or below it? */
export function isAtOrBelow(groupUid: string, ancestor: string): boolean {
  return groupUid === ancestor || isBelow(groupUid, ancestor);
}

/** Is `groupUid` at or below one of `roots`? */
export function underAny(groupUid: string, roots: ReadonlySet<string>): boolean {
  if (roots.size === 0) return false;
  if (roots.has(groupUid)) return true;
  for (let parent = parentOf(groupUid); parent !== undefined; parent = parentOf(parent))
    if (roots.has(parent)) return true;
  return false;
}

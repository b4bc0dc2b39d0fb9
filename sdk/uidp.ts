/**
 * The service's hierarchical uids (uidp): a child's uid is its parent's uid, "/", and its own segment, so the group
 * an object lives in is read from its uid alone. One helper for every layer (client, provider, emulator, commands).
 *
 * May import: nothing.
 */

/** The parent of a child uid (`a/b/c` → `a/b`); undefined for a root uid (an organization, a root-level user). */
export function parentOf(uid: string): string | undefined {
  const cut = uid.lastIndexOf("/");
  return cut < 0 ? undefined : uid.slice(0, cut);
}

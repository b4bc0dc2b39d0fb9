/**
 * The `Names` of a review (and of the changes since an earlier one), how an output writes a named object, and how an
 * identity is marked: what the text, the Markdown, the page and the CSV share about naming a review's objects.
 */
import type { NamedKind, Names } from "../../sdk/words";
import type { ReviewChanges } from "./changes";
import { namesFrom, type NameSources } from "./names";
import type { Review, ReviewedIdentity } from "./review";

/** The caller a review was read as, with its name when known (none when the caller is not known). */
const callerOf = (r: { caller?: string | undefined; callerName?: string | undefined }) =>
  r.caller === undefined ? [] : [{ uid: r.caller, name: r.callerName }];

/**
 * What a review's changes name: gone identities and groups are known only from the earlier review, and so is the
 * caller it was read as.
 */
function changesSources(c: ReviewChanges): NameSources {
  return {
    identities: [
      ...callerOf(c.since),
      ...c.access.map((a) => ({ uid: a.identity, name: a.identityName })),
      ...c.identities.new,
      ...c.identities.gone,
    ],
    groups: [
      ...c.access.flatMap((a) => [
        { uid: a.group, name: a.groupName },
        ...a.under,
        ...a.through.map((t) => ({ uid: t.boundOn, name: t.boundOnName })),
      ]),
      ...c.groups.new,
      ...c.groups.gone,
    ],
    roles: [
      ...c.access.flatMap((a) => a.through.map((t) => ({ uid: t.role, name: t.roleName }))),
      ...c.roles,
    ],
  };
}

/**
 * The names a review's outputs use: its identities, groups and roles, those its bindings name, the caller it was read
 * as, and its changes'.
 */
export function namesOf(r: Review): Names {
  const sources: NameSources = {
    identities: [
      // An identity the review knows by uid alone has its uid as its name: Names takes that as none.
      ...r.identities,
      ...r.withoutAccess,
      ...r.bindings.map((b) => ({ uid: b.identity, name: b.identityName })),
      ...callerOf(r),
    ],
    groups: [...r.groups, ...r.bindings.map((b) => ({ uid: b.group, name: b.groupName }))],
    roles: [...r.roles, ...r.bindings.map((b) => ({ uid: b.role, name: b.roleName }))],
  };
  return r.changes === undefined ? namesFrom(sources) : namesFrom(sources, changesSources(r.changes));
}

/** How an output writes an object by name with its kind: as text, or escaped for Markdown or HTML. */
export type Writer = (kind: NamedKind, uid: string) => string;

/** The marks of an identity, in words (its kind is said with its name). */
export function marks(i: ReviewedIdentity): string[] {
  const out: string[] = [];
  if (i.privileged) out.push("privileged");
  if (i.unused === true) out.push(i.lastSeenTime === undefined ? "unused (never seen)" : "unused");
  if (i.unmanaged === true) out.push("unmanaged");
  return out;
}

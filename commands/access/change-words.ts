/**
 * How a change of access since an earlier review is worded, in every output that says it: the text (./review-text),
 * the Markdown (./review-markdown) and the page (./changes-html) each write these words, escaped as their format
 * wants. A role gained or lost whole by its name and size, the rest capability by capability (sdk/access-model
 * `byWholeRoles`); like changes said once (./alike).
 */
import { isPrivileged } from "../../sdk/access-model";
import {
  IDENTITY_NOUNS,
  andFoldersUnder,
  capabilityText,
  countOf,
  nounOf,
  withArticle,
  type NamedKind,
  type Names,
} from "../../sdk/words";
import { firstNames } from "./alike";
import type { ChangedAccess, ChangedThrough, ReviewChanges } from "./changes";
import type { Writer } from "./review-names";
import { parentOf } from "../../sdk/uidp";

/** A capability as text (`capabilityText`): a privileged one ends in `*`. */
export const capability = (c: string) => (isPrivileged(c) ? `${capabilityText(c)}*` : capabilityText(c));

/** Where a change happens: "folder eng and the 3 folders under it", the group written by `write`. */
export function whereWords(c: ChangedAccess, write: Writer): string {
  return `${write("group", c.group)}${andFoldersUnder(c.under.length)}`;
}

/**
 * What a change says, binding by binding: a role changing hands whole (`whole`: said by its name; the decision is
 * the model's, ./changes), then the other bindings with the capabilities only they give or took (those a whole role
 * of the same side covers are said by the role). Gains first.
 */
export function changeParts(c: ChangedAccess): { through: ChangedThrough; capabilities: string[] }[] {
  const parts: { through: ChangedThrough; capabilities: string[] }[] = [];
  for (const change of ["gained", "lost"] as const) {
    const side = c.through.filter((t) => t.change === change);
    const covered = new Set(side.filter((t) => t.whole).flatMap((t) => t.capabilities));
    const wholeRoles = new Set<string>();
    for (const t of side.filter((x) => x.whole))
      if (!wholeRoles.has(t.role)) {
        wholeRoles.add(t.role);
        parts.push({ through: t, capabilities: t.capabilities });
      }
    for (const t of side.filter((x) => !x.whole)) {
      const own = t.capabilities.filter((cap) => !covered.has(cap));
      if (own.length > 0) parts.push({ through: t, capabilities: own });
    }
  }
  return parts;
}

/**
 * A whole role's size, as every output says it: "3 capabilities", "24 capabilities, 6 privileged: A, B, …" (the
 * privileged ones named, written by `cap`, joined by `join`).
 */
export function roleSize(
  capabilities: readonly string[],
  cap: (capability: string) => string,
  join = ", ",
): string {
  const privileged = capabilities.filter(isPrivileged);
  return (
    countOf(capabilities.length, "capability") +
    (privileged.length === 0 ? "" : `, ${privileged.length} privileged: ${privileged.map(cap).join(join)}`)
  );
}

/** The verb of a part: a whole role is become or left, capabilities are gained or lost. */
export function partVerb(part: { through: ChangedThrough }): string {
  if (part.through.whole) return part.through.change === "gained" ? "becomes" : "is no longer";
  return part.through.change === "gained" ? "gains" : "loses";
}

/**
 * Each part of a change in words: "becomes role deployer (3 capabilities)" (", bound on folder eng" where the
 * binding is on another group than the change's), "gains CAP_A CAP_B through role deployer bound on folder eng";
 * objects written by `write`, a role's size by `size`, capabilities by `caps`.
 */
export function partWords(
  c: ChangedAccess,
  write: Writer,
  caps: (capabilities: readonly string[]) => string,
  size: (capabilities: readonly string[]) => string,
): string[] {
  return changeParts(c).map((part) => {
    const t = part.through;
    if (t.whole)
      return (
        `${partVerb(part)} ${write("role", t.role)} (${size(t.capabilities)})` +
        (t.boundOn === c.group ? "" : `, bound on ${write("group", t.boundOn)}`)
      );
    return `${partVerb(part)} ${caps(part.capabilities)} through ${write("role", t.role)} bound on ${write("group", t.boundOn)}`;
  });
}

/**
 * The cells of one change in a table, each its own fact: what changes ("becomes role editor (24 capabilities, 6
 * privileged: …)", "gains CAP_A, CAP_B") and through which binding (a role said whole is not said again: only where
 * it is bound; "this group" when on the group of the change). Objects written by `write`, a role's size by `size`,
 * capabilities by `caps`, the parts of a cell joined by `separator`, and after a whole role's size what `expand`
 * adds (the page: every capability, one click away): the Markdown and the page say them alike.
 */
export function changeCells(
  c: ChangedAccess,
  write: Writer,
  caps: (capabilities: readonly string[]) => string,
  size: (capabilities: readonly string[]) => string,
  separator: string,
  expand: (capabilities: readonly string[]) => string = () => "",
): { what: string; through: string } {
  const parts = changeParts(c);
  const where = (group: string) => (group === c.group ? "this group" : write("group", group));
  return {
    what: parts
      .map((p) =>
        p.through.whole
          ? `${partVerb(p)} ${write("role", p.through.role)} (${size(p.capabilities)})${expand(p.capabilities)}`
          : `${partVerb(p)} ${caps(p.capabilities)}`,
      )
      .join(separator),
    through: parts
      .map((p) =>
        p.through.whole
          ? `bound on ${where(p.through.boundOn)}`
          : `${write("role", p.through.role)} bound on ${where(p.through.boundOn)}`,
      )
      .join(separator),
  };
}

export const capabilitiesText = (list: readonly string[]) => list.map(capability).join(" ");
export const sizeText = (list: readonly string[]) => roleSize(list, capabilityText, " ");

/** One change of access in words: who, where, which roles it becomes (or leaves) and which capabilities. */
export function changeLine(c: ChangedAccess, names: Names): string {
  const write: Writer = (kind, uid) => names.named(kind, uid);
  return `${names.identity(c.identity)} on ${whereWords(c, write)}: ${partWords(c, write, capabilitiesText, sizeText).join("; ")}`;
}

/** Which identities and groups of a comparison are new (a change's shape says so). */
export interface Newness {
  identities: ReadonlySet<string>;
  groups: ReadonlySet<string>;
}

export const newnessOf = (c: ReviewChanges): Newness => ({
  identities: new Set(c.identities.new.map((i) => i.uid)),
  groups: new Set(c.groups.new.map((g) => g.uid)),
});

/**
 * What makes changes of access alike (./alike): everything but the names of the identity and the group. A
 * privileged change, or one said capability by capability, is said alone.
 */
export function changeShape(c: ChangedAccess, newness: Newness): string | undefined {
  if (c.privileged || c.through.some((t) => !t.whole)) return undefined;
  return JSON.stringify([
    c.identityKind,
    newness.identities.has(c.identity),
    newness.groups.has(c.group),
    parentOf(c.identity) === c.group,
    c.under.length,
    changeParts(c).map((p) => [
      p.through.change,
      p.through.role,
      p.through.boundOn === c.group ? "" : p.through.boundOn,
    ]),
  ]);
}

/**
 * How like changes are said together (./alike): who ("each of 297 new workload identities"), what (the first
 * change's parts: alike, they say the same), where ("its own new folder") and the first few by name.
 */
export function alikeWords(
  alike: readonly ChangedAccess[],
  newness: Newness,
  write: Writer,
  name: (kind: NamedKind, uid: string) => string,
  caps: (capabilities: readonly string[]) => string,
  size: (capabilities: readonly string[]) => string,
): { who: string; what: string; where: string; names: string } {
  const first = alike[0]!;
  const fresh = (isNew: boolean) => (isNew ? "new " : "");
  const own = parentOf(first.identity) === first.group;
  const groupNoun = `${fresh(newness.groups.has(first.group))}${nounOf("group", first.group)}`;
  const identityNoun = `${fresh(newness.identities.has(first.identity))}${IDENTITY_NOUNS[first.identityKind]}`;
  return {
    who: `each of ${countOf(alike.length, identityNoun)}`,
    what: partWords(first, write, caps, size).join("; "),
    where: `${own ? `its own ${groupNoun}` : withArticle(groupNoun)}${andFoldersUnder(first.under.length)}`,
    names: firstNames(
      alike,
      (c) => `${name("identity", c.identity)} ${own ? "in" : "on"} ${name("group", c.group)}`,
    ),
  };
}

/** How many identities and groups new or gone the text and Markdown name; the JSON and CSV hold every one. */
export const LISTED = 10;

/** How many of each kind of change, in one line. */
export function changesSummary(c: ReviewChanges): string {
  const privileged = c.access.filter((a) => a.privileged).length;
  return [
    `${countOf(c.access.length, "change")} of access (${privileged} privileged)`,
    `${countOf(c.identities.new.length, "identity")} new, ${c.identities.gone.length} gone`,
    `${countOf(c.groups.new.length, "group")} new, ${c.groups.gone.length} gone`,
    `${countOf(c.roles.length, "role")} changed`,
  ].join(", ");
}

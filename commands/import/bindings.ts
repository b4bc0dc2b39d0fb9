/**
 * The form the import document gives role bindings (`platform-import --bindings`): one `RoleBinding` each (the
 * default), one `GroupAccess` per group that holds them (imported by the group's uid: the bindings directly on it),
 * or one `IdentityAccess` per identity that holds them (imported by the identity's uid: its bindings anywhere). One
 * resource per scope is one engine step instead of one per binding.
 *
 * A scope becomes an access resource only when the document takes every binding the listing found in it: in a
 * report, a group or identity of which a stack already manages a binding keeps its other bindings as RoleBindings,
 * because an access resource would claim the managed one too (and its stack's preview would fail on the overlap).
 * An IdentityAccess is written only for an identity under the walked group (an identity above it may hold bindings
 * the walk does not see). What stays a RoleBinding, and why, is a warning of the document.
 */
import { parentOf } from "../../sdk/uidp";
import { Names } from "../../sdk/words";
import { type Found } from "./document";

export const BINDINGS_FORMS = ["role-binding", "group-access", "identity-access"] as const;
export type BindingsForm = (typeof BINDINGS_FORMS)[number];

export interface BindingsContext {
  /** Every binding the listing found, taken into the document or not. */
  listed: readonly Found[];
  /** The uids of the identities the listing found (those under the walked group). */
  identities: ReadonlySet<string>;
  /** Names of groups and identities, for the access resources' names. */
  names: ReadonlyMap<string, string>;
}

/** The objects with their bindings in the given form, and a warning for each scope left as RoleBindings. */
export function withBindingsAs(
  form: BindingsForm,
  found: readonly Found[],
  context: BindingsContext,
): { found: Found[]; warnings: string[] } {
  if (form === "role-binding") return { found: [...found], warnings: [] };
  const byGroup = form === "group-access";
  const scopeOf = (b: Found) => (byGroup ? (b.group ?? "") : (b.binding?.identity.uid ?? ""));
  const taken = found.filter((f) => f.kind === "roleBinding");
  const takenUids = new Set(taken.map((b) => b.uid));
  const scopes = new Map<string, Found[]>();
  for (const b of taken) scopes.set(scopeOf(b), [...(scopes.get(scopeOf(b)) ?? []), b]);

  const out = found.filter((f) => f.kind !== "roleBinding");
  const kept: string[] = [];
  const kind = byGroup ? "group" : "identity";
  for (const [scope, bindings] of scopes) {
    const allTaken = context.listed.filter((b) => scopeOf(b) === scope).every((b) => takenUids.has(b.uid));
    const visible = byGroup || context.identities.has(scope);
    if (!allTaken || !visible) {
      out.push(...bindings);
      kept.push(
        `${new Names().add(kind, scope, context.names.get(scope)).named(kind, scope)} (${bindings.length}: ${
          !allTaken ? "a stack manages another of its bindings" : "the identity is not under the walked group"
        })`,
      );
      continue;
    }
    const name = context.names.get(scope) ?? (byGroup ? "group" : "identity");
    out.push({
      kind: byGroup ? "groupAccess" : "identityAccess",
      uid: scope,
      base: `${name}-access`,
      // Its Pulumi parent: the group it governs, or the group the identity lives in.
      group: byGroup ? scope : parentOf(scope),
      strings: [
        scope,
        ...bindings.flatMap((b) => [
          byGroup ? (b.binding?.identity.uid ?? "") : (b.group ?? ""),
          b.binding?.role.uid ?? "",
        ]),
      ].filter((s) => s !== ""),
    });
  }
  const what = byGroup ? "GroupAccess" : "IdentityAccess";
  const warnings =
    kept.length === 0
      ? []
      : [
          `these ${byGroup ? "groups" : "identities"} keep one RoleBinding per binding instead of a ${what}: ${kept.join(", ")}`,
        ];
  return { found: out, warnings };
}

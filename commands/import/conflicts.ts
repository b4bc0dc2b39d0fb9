/**
 * Stacks that fight: what two resources manage at once, found from the stacks' states and the service's objects
 * under a group, before any `up` pays for it. Three kinds:
 *
 *   - `duplicate`: one object held by two resources (the same uid: adopted twice, or imported into two stacks).
 *     Each `up` of one undoes the other's changes, and a destroy of either deletes it under the other;
 *   - `binding-in-scope`: a `RoleBinding` whose binding lies in the scope of a `GroupAccess` or `IdentityAccess` (an
 *     authoritative resource: every binding in its scope is its own). The access resource's next `up` deletes the
 *     binding unless it declares it, and the RoleBinding's next `up` makes it again;
 *   - `overlapping-scopes`: two access resources whose scopes share bindings (two groups one of which holds the
 *     other's subtree, or one identity twice), or a group's and an identity's that declare different bindings of
 *     that identity on that group (where they meet): each `up` removes what only the other declares. The same
 *     rule as the preview's within one stack (../../provider/iam/access, claims).
 *
 * A binding is its natural key (group, identity, role): read from the service when it has the binding, else from
 * the RoleBinding's inputs (unless secret). A conflict is reported when what is fought over is at or under the group
 * reported on. Within one stack the engine's preview already refuses the last two (the provider sees its own
 * stack's resources); across stacks only this report sees both.
 */
import { inScope, isAtOrBelow, type Binding, type Scope } from "../../provider/iam/access";
import type { ListedKind } from "../kinds";
import type { AccessHolder, Managers, Manager, ScopeHolder, StateContents } from "../states";

export type Conflict =
  | { conflict: "duplicate"; kind: ListedKind; uid: string; resources: Manager[] }
  | { conflict: "binding-in-scope"; uid: string; binding: Binding; resources: [Manager, ...ScopeHolder[]] }
  | { conflict: "overlapping-scopes"; resources: [ScopeHolder, ScopeHolder] };

/** An object the service has under the group (a role binding with its key). */
export interface LiveObject {
  kind: ListedKind;
  uid: string;
  binding?: Binding;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Objects held by more than one resource. */
function duplicates(
  states: readonly { contents: StateContents }[],
  managers: Managers,
  within: (uid: string) => boolean,
): Conflict[] {
  const seen = new Set<string>();
  const out: Conflict[] = [];
  for (const { contents } of states)
    for (const m of contents.managed) {
      const key = `${m.kind} ${m.uid}`;
      if (seen.has(key) || !within(m.uid)) continue;
      seen.add(key);
      const resources = managers.of(m.kind, m.uid);
      if (resources.length > 1) out.push({ conflict: "duplicate", kind: m.kind, uid: m.uid, resources });
    }
  return out;
}

/** RoleBindings in the scope of an access resource. */
function bindingsInScope(
  states: readonly { contents: StateContents }[],
  managers: Managers,
  live: ReadonlyMap<string, Binding>,
  within: (uid: string) => boolean,
): Conflict[] {
  const out: Conflict[] = [];
  for (const { contents } of states)
    for (const m of contents.managed) {
      if (m.kind !== "roleBinding" || !within(m.uid)) continue;
      const binding = live.get(m.uid) ?? m.binding;
      if (binding === undefined) continue;
      const holders = managers.over(binding);
      if (holders.length > 0)
        out.push({
          conflict: "binding-in-scope",
          uid: m.uid,
          binding,
          resources: [{ stack: m.state, urn: m.urn, type: m.token }, ...holders],
        });
    }
  return out;
}

/** The scope two group scopes share, if any: the one inside the other. */
function innerOf(a: Extract<Scope, { kind: "group" }>, b: Extract<Scope, { kind: "group" }>) {
  if (a.groupUid === b.groupUid) return a.subtree ? b : a;
  if (a.subtree && isAtOrBelow(b.groupUid, a.groupUid)) return b;
  if (b.subtree && isAtOrBelow(a.groupUid, b.groupUid)) return a;
  return undefined;
}

/** A set of bindings as one comparable string. */
const setOf = (bindings: readonly Binding[]) =>
  [...new Set(bindings.map((x) => `${x.groupUid} ${x.identityUid} ${x.roleUid}`))].sort().join(",");

/** Whether two access resources fight over bindings under `top` (`bindings`: the live ones there). */
function overlap(a: AccessHolder, b: AccessHolder, top: string, bindings: readonly Binding[]): boolean {
  const sa = a.holder.scope;
  const sb = b.holder.scope;
  if (sa.kind === "group" && sb.kind === "group") {
    const inner = innerOf(sa, sb);
    return (
      inner !== undefined &&
      (isAtOrBelow(inner.groupUid, top) || (inner.subtree && isAtOrBelow(top, inner.groupUid)))
    );
  }
  if (sa.kind === "identity" && sb.kind === "identity")
    return (
      sa.identityUid === sb.identityUid &&
      (isAtOrBelow(sa.identityUid, top) || bindings.some((x) => x.identityUid === sa.identityUid))
    );
  // A group and an identity meet on that identity's bindings in that group's scope: they fight when they declare
  // different ones there (a list of bindings kept secret counts as none).
  const meet = (declared: readonly Binding[]) =>
    declared.filter((x) => isAtOrBelow(x.groupUid, top) && inScope(sa, x) && inScope(sb, x));
  return setOf(meet(a.declared)) !== setOf(meet(b.declared));
}

/** Pairs of access resources whose scopes overlap. */
function overlappingScopes(managers: Managers, bindings: readonly Binding[], top: string): Conflict[] {
  const holders = managers.holders;
  const out: Conflict[] = [];
  for (let i = 0; i < holders.length; i++)
    for (let j = i + 1; j < holders.length; j++) {
      const [a, b] = [holders[i]!, holders[j]!];
      if (overlap(a, b, top, bindings))
        out.push({ conflict: "overlapping-scopes", resources: [a.holder, b.holder] });
    }
  return out;
}

/**
 * Every conflict among the states' resources over what is at or under the group `top` (`managers`: what the
 * same states manage).
 */
export function findConflicts(
  states: readonly { contents: StateContents }[],
  managers: Managers,
  objects: readonly LiveObject[],
  top: string,
): Conflict[] {
  const within = (uid: string) => isAtOrBelow(uid, top);
  const live = new Map<string, Binding>();
  for (const o of objects)
    if (o.kind === "roleBinding" && o.binding !== undefined) live.set(o.uid, o.binding);
  const key = (c: Conflict) => `${c.conflict} ${c.resources.map((r) => `${r.stack} ${r.urn}`).join(" ")}`;
  return [
    ...duplicates(states, managers, within),
    ...bindingsInScope(states, managers, live, within),
    ...overlappingScopes(managers, [...live.values()], top),
  ].sort((a, b) => compare(key(a), key(b)));
}

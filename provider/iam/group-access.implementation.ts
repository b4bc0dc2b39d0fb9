/**
 * The implementation of the provider of platform.iam.GroupAccess: its scope is a group (or a group and every group
 * under it), its id the group's uid (`<uid>/**` for the subtree). Exported as the WHOLE module so Pulumi serializes
 * a `require()`.
 */
import type * as pulumi from "@pulumi/pulumi";
import { containsUnknown } from "../core/check";
import { dynamicProvider } from "../core/resource-provider";
import { accessOperations, type AccessDescription } from "./access-provider";
import type { Binding, Scope } from "./access";
import { GROUP_ACCESS } from "./group-access.declaration";

type Props = Record<string, unknown>;

/** The id suffix that names a subtree: `<group uid>/**`. */
const SUBTREE_SUFFIX = "/**";

function groupScope(scope: Scope): Extract<Scope, { kind: "group" }> {
  if (scope.kind !== "group") throw new Error(`GroupAccess governs a group, not ${scope.kind}`);
  return scope;
}

export const description: AccessDescription = {
  declaration: GROUP_ACCESS,
  scopeOf(props) {
    const { groupUid, scope } = props;
    if (
      typeof groupUid !== "string" ||
      groupUid === "" ||
      containsUnknown(groupUid) ||
      containsUnknown(scope)
    )
      return undefined;
    return { kind: "group", groupUid, subtree: scope === "subtree" };
  },
  scopeOfId(id) {
    return id.endsWith(SUBTREE_SUFFIX)
      ? { kind: "group", groupUid: id.slice(0, -SUBTREE_SUFFIX.length), subtree: true }
      : { kind: "group", groupUid: id, subtree: false };
  },
  idOf(scope) {
    const { groupUid, subtree } = groupScope(scope);
    return subtree ? `${groupUid}${SUBTREE_SUFFIX}` : groupUid;
  },
  scopeInputs(scope) {
    const { groupUid, subtree } = groupScope(scope);
    return { groupUid, scope: subtree ? "subtree" : "group" };
  },
  declaredOf(props, scope) {
    const { groupUid } = groupScope(scope);
    const bindings = (Array.isArray(props.bindings) ? props.bindings : []) as Props[];
    return bindings.map((b): Binding => ({
      groupUid: typeof b.groupUid === "string" && b.groupUid !== "" ? b.groupUid : groupUid,
      identityUid: String(b.identityUid),
      roleUid: String(b.roleUid),
    }));
  },
  assertExists: (client, scope) => client.groups.get(groupScope(scope).groupUid),
  // Every binding names its group, so state, refresh and the program's checked inputs have one form.
  programFormOf(bindings) {
    return bindings.map((b) => ({ identityUid: b.identityUid, roleUid: b.roleUid, groupUid: b.groupUid }));
  },
};

export const resource = accessOperations(description);

export const provider: pulumi.dynamic.ResourceProvider = dynamicProvider(resource);

/**
 * The implementation of the dynamic provider of platform.iam.RoleBinding. Every input replaces, so there is no update beyond
 * recording a new profile. Exported as the WHOLE module so Pulumi serializes a `require()`.
 *
 * Its check also records the binding it claims (./access claim), so a GroupAccess or IdentityAccess of the same
 * stack that declares the binding's scope completely fails the preview, naming both.
 *
 * May import: ../core, ../../sdk, ./access, ./role-binding.declaration.
 */
import type * as pulumi from "@pulumi/pulumi";
import { defineResourceProvider, type ResourceDescription } from "../core/resource-provider";
import { parentOf } from "../core/create";
import { ROLE_BINDING, type RoleBindingInputs } from "./role-binding.declaration";
import type { RoleBinding } from "../../sdk";
import { containsUnknown } from "../core/check";
import { claim, describeBinding, labelOfUrn } from "./access";

export const description: ResourceDescription<RoleBindingInputs, RoleBinding> = {
  declaration: ROLE_BINDING,
  describe: (inputs) => ({
    where:
      inputs.groupUid !== undefined
        ? `of role ${inputs.roleUid} to identity ${inputs.identityUid} on group ${inputs.groupUid}`
        : undefined,
  }),
  get: (client, uid) => client.roleBindings.get(uid),
  create: (client, inputs) =>
    client.roleBindings.create(inputs.groupUid, { identityUid: inputs.identityUid, roleUid: inputs.roleUid }),
  // A binding's natural key is (group, identity, role).
  async lookup(client, inputs) {
    const query = {
      group: inputs.groupUid,
      identity: inputs.identityUid,
      role: inputs.roleUid,
      pageSize: 200,
    };
    for await (const binding of client.roleBindings.list(query)) {
      const groupUid = binding.group?.uid ?? parentOf(binding.uid);
      if (
        groupUid === inputs.groupUid &&
        binding.identity?.uid === inputs.identityUid &&
        binding.role?.uid === inputs.roleUid
      ) {
        return binding;
      }
    }
    return undefined;
  },
  delete: (client, uid) => client.roleBindings.delete(uid),
  inputsOf: (binding) => ({
    groupUid: binding.group?.uid ?? parentOf(binding.uid) ?? "",
    identityUid: binding.identity?.uid ?? "",
    roleUid: binding.role?.uid ?? "",
  }),
  outputsOf: (binding) => ({
    uid: binding.uid,
    createTime: binding.createTime,
  }),
};

const kit = defineResourceProvider(description);

/** The kit's check, then the binding's claim against the authoritative resources checked before it. */
async function check(
  olds: RoleBindingInputs,
  news: RoleBindingInputs,
  urn?: string,
): Promise<pulumi.dynamic.CheckResult<RoleBindingInputs>> {
  const result = await kit.check!(olds, news);
  if ((result.failures ?? []).length > 0 || containsUnknown([news.groupUid, news.identityUid, news.roleUid]))
    return result;
  const binding = { groupUid: news.groupUid, identityUid: news.identityUid, roleUid: news.roleUid };
  const label =
    (urn !== undefined ? labelOfUrn(urn) : undefined) ?? `RoleBinding of ${describeBinding(binding)}`;
  const conflicts = claim(urn ?? `platform:iam:RoleBinding ${label}`, label, { kind: "binding", binding });
  return conflicts.length === 0
    ? result
    : { ...result, failures: conflicts.map((reason) => ({ property: "", reason })) };
}

export const provider: pulumi.dynamic.ResourceProvider = { ...kit, check };

/**
 * The implementation of the dynamic provider of platform.iam.RoleBinding. Every input replaces, so there is no update beyond
 * recording a new profile. Exported as the WHOLE module so Pulumi serializes a `require()`.
 *
 * May import: ../core, ../../sdk, ./role-binding.declaration.
 */
import type * as pulumi from "@pulumi/pulumi";
import { defineResourceProvider, type ResourceDescription } from "../core/resource-provider";
import { parentOf } from "../../sdk/uidp";
import { ROLE_BINDING, type RoleBindingInputs } from "./role-binding.declaration";
import type { RoleBinding } from "../../sdk";

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

export const provider: pulumi.dynamic.ResourceProvider = defineResourceProvider(description);

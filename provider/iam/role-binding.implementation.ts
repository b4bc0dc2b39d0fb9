/**
 * The implementation of the dynamic provider of platform.iam.RoleBinding. Every input replaces, so there is no update beyond
 * recording a new profile. Exported as the WHOLE module so Pulumi serializes a `require()`.
 *
 * May import: ../core, ../../sdk, ./role-binding.declaration.
 */
import type * as pulumi from "@pulumi/pulumi";
import { deriveDescription, dynamicProvider, resourceOperations } from "../core/resource-provider";
import { parentOf } from "../../sdk/uidp";
import { ROLE_BINDING, type RoleBindingInputs } from "./role-binding.declaration";
import type { RoleBinding, RoleBindingCreate } from "../../sdk";

export const description = deriveDescription<RoleBindingInputs, RoleBinding>({
  declaration: ROLE_BINDING,
  describe: (inputs) => ({
    where:
      inputs.groupUid !== undefined
        ? `of role ${inputs.roleUid} to identity ${inputs.identityUid} on group ${inputs.groupUid}`
        : undefined,
  }),
  // The API object names its references as hydrated members (group, identity, role).
  wire: {
    read: {
      groupUid: (binding) => binding.group?.uid ?? parentOf(binding.uid) ?? "",
      identityUid: (binding) => binding.identity?.uid ?? "",
      roleUid: (binding) => binding.role?.uid ?? "",
    },
  },
  get: (client, uid) => client.roleBindings.get(uid),
  create: (client, inputs, body) => client.roleBindings.create(inputs.groupUid, body as RoleBindingCreate),
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
  outputsOf: (binding) => ({
    uid: binding.uid,
    createTime: binding.createTime,
  }),
});

export const resource = resourceOperations(description);

export const provider: pulumi.dynamic.ResourceProvider = dynamicProvider(resource);

/**
 * The implementation of the dynamic provider of platform.iam.Role (custom roles). Exported as the WHOLE module so Pulumi
 * serializes a `require()` of the installed package.
 *
 * May import: ../core, ../../sdk, ./role.declaration.
 */
import type * as pulumi from "@pulumi/pulumi";
import { deriveDescription, dynamicProvider, resourceOperations } from "../core/resource-provider";
import { parentOf } from "../../sdk/uidp";
import { ROLE, type RoleInputs } from "./role.declaration";
import type { Role, RoleCreate, RoleUpdate } from "../../sdk";

export const description = deriveDescription<RoleInputs, Role>({
  declaration: ROLE,
  describe: (inputs) => ({
    name: inputs.name,
    where: inputs.parentUid ? `under group ${inputs.parentUid}` : undefined,
  }),
  wire: {
    read: {
      parentUid: (role) => parentOf(role.uid) ?? "",
      capabilities: (role) => [...(role.capabilities ?? [])].sort(),
    },
  },
  get: (client, uid) => client.roles.get(uid),
  create: (client, inputs, body) => client.roles.create(inputs.parentUid, body as RoleCreate),
  async lookup(client, inputs) {
    for await (const role of client.roles.list({
      childrenOf: inputs.parentUid,
      name: inputs.name,
      pageSize: 200,
    })) {
      if (role.name === inputs.name && parentOf(role.uid) === inputs.parentUid) return role;
    }
    return undefined;
  },
  update: (client, uid, patch) => client.roles.update(uid, patch as RoleUpdate),
  delete: (client, uid) => client.roles.delete(uid),
  outputsOf: (role) => ({ uid: role.uid, createTime: role.createTime }),
});

export const resource = resourceOperations(description);

export const provider: pulumi.dynamic.ResourceProvider = dynamicProvider(resource);

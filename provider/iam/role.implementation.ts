/**
 * The implementation of the dynamic provider of platform.iam.Role (custom roles). Exported as the WHOLE module so Pulumi
 * serializes a `require()` of the installed package.
 *
 * May import: ../core, ../../sdk, ./role.declaration.
 */
import type * as pulumi from "@pulumi/pulumi";
import { defineResourceProvider, type ResourceDescription } from "../core/resource-provider";
import { parentOf } from "../../sdk/uidp";
import { ROLE, type RoleInputs } from "./role.declaration";
import type { Role } from "../../sdk";

export const description: ResourceDescription<RoleInputs, Role> = {
  declaration: ROLE,
  describe: (inputs) => ({
    name: inputs.name,
    where: inputs.parentUid ? `under group ${inputs.parentUid}` : undefined,
  }),
  get: (client, uid) => client.roles.get(uid),
  create: (client, inputs) =>
    client.roles.create(inputs.parentUid, {
      name: inputs.name,
      description: inputs.description,
      capabilities: inputs.capabilities,
    }),
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
  update: (client, uid, inputs, fields) =>
    client.roles.update(uid, {
      name: fields.includes("name") ? inputs.name : undefined,
      description: fields.includes("description") ? (inputs.description ?? "") : undefined,
      capabilities: fields.includes("capabilities") ? inputs.capabilities : undefined,
    }),
  delete: (client, uid) => client.roles.delete(uid),
  inputsOf: (role) => ({
    parentUid: parentOf(role.uid) ?? "",
    name: role.name,
    description: role.description ?? "",
    capabilities: [...(role.capabilities ?? [])].sort(),
  }),
  outputsOf: (role) => ({ uid: role.uid, createTime: role.createTime }),
};

export const provider: pulumi.dynamic.ResourceProvider = defineResourceProvider(description);

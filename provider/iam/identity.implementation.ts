/**
 * The implementation of the dynamic provider of platform.iam.Identity (a workload identity). Dynamic providers live in
 * `<stem>.provider.ts`, so this file and the IdentityProvider resource's `identity-provider.ts` stay apart.
 *
 * Loaded by ./identity.provider on its first call, in the provider process.
 *
 * May import: ../core, ../../sdk, ./identity.declaration.
 */
import type * as pulumi from "@pulumi/pulumi";
import { defineResourceProvider, type ResourceDescription } from "../core/resource-provider";
import { parentOf } from "../../sdk/uidp";
import { IDENTITY, type IdentityInputs } from "./identity.declaration";
import type { Identity } from "../../sdk";

export const description: ResourceDescription<IdentityInputs, Identity> = {
  declaration: IDENTITY,
  describe: (inputs) => ({
    name: inputs.name,
    where: inputs.parentUid ? `under group ${inputs.parentUid}` : undefined,
  }),
  get: (client, uid) => client.identities.get(uid),
  create: (client, inputs) =>
    client.identities.create(inputs.parentUid, {
      name: inputs.name,
      description: inputs.description,
      claimMatch: inputs.claimMatch,
      staticKeys: inputs.staticKeys,
      awsIdentity: inputs.awsIdentity,
      servicePrincipal: inputs.servicePrincipal,
    }),
  async lookup(client, inputs) {
    for await (const identity of client.identities.list({
      childrenOf: inputs.parentUid,
      name: inputs.name,
      pageSize: 200,
    })) {
      if (identity.name === inputs.name && parentOf(identity.uid) === inputs.parentUid) return identity;
    }
    return undefined;
  },
  update: (client, uid, inputs, fields) =>
    client.identities.update(uid, {
      name: fields.includes("name") ? inputs.name : undefined,
      description: fields.includes("description") ? (inputs.description ?? "") : undefined,
      // Setting one kind clears the others on the service (a oneof), so a switch sends only the new kind.
      claimMatch: fields.includes("claimMatch") ? inputs.claimMatch : undefined,
      staticKeys: fields.includes("staticKeys") ? inputs.staticKeys : undefined,
      awsIdentity: fields.includes("awsIdentity") ? inputs.awsIdentity : undefined,
      servicePrincipal: fields.includes("servicePrincipal") ? inputs.servicePrincipal : undefined,
    }),
  delete: (client, uid) => client.identities.delete(uid),
  inputsOf: (identity) => ({
    parentUid: parentOf(identity.uid) ?? "",
    name: identity.name,
    description: identity.description ?? "",
    ...(identity.claimMatch !== undefined ? { claimMatch: identity.claimMatch } : {}),
    ...(identity.staticKeys !== undefined
      ? { staticKeys: identity.staticKeys as IdentityInputs["staticKeys"] }
      : {}),
    ...(identity.awsIdentity !== undefined
      ? { awsIdentity: identity.awsIdentity as IdentityInputs["awsIdentity"] }
      : {}),
    ...(identity.servicePrincipal !== undefined
      ? { servicePrincipal: identity.servicePrincipal as IdentityInputs["servicePrincipal"] }
      : {}),
  }),
  outputsOf: (identity) => ({
    uid: identity.uid,
    createTime: identity.createTime,
  }),
};

export const provider: pulumi.dynamic.ResourceProvider = defineResourceProvider(description);

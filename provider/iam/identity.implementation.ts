/**
 * The implementation of the dynamic provider of platform.iam.Identity (a workload identity). Dynamic providers live in
 * `<stem>.provider.ts`, so this file and the IdentityProvider resource's `identity-provider.ts` stay apart.
 *
 * Loaded by ./identity.provider on its first call, in the provider process.
 */
import { childNamed } from "../core/create";
import { nameText, said } from "../../sdk/words";
import { objectAccess } from "../core/access-review";
import { withIdentity, withoutIdentity } from "../core/live-facts";
import type * as pulumi from "@pulumi/pulumi";
import { deriveDescription, dynamicProvider, resourceOperations } from "../core/resource-provider";
import { parentOf } from "../../sdk/uidp";
import { IDENTITY, type IdentityInputs } from "./identity.declaration";
import type { Identity, IdentityCreate, IdentityUpdate } from "../../sdk";

export const description = deriveDescription<IdentityInputs, Identity>({
  // At preview: what creating or changing it needs; a replacement deletes it, and its bindings with it. Once
  // written, its name is in the facts the rest of the run reviews against (it holds no binding yet).
  ...objectAccess<Identity>({
    collection: "identities",
    parentKey: "parentUid",
    afterDelete: withoutIdentity,
    written: withIdentity,
    names: "identity",
  }),
  declaration: IDENTITY,
  describe: (inputs) => ({
    name: inputs.name,
    where: inputs.parentUid ? said`under group ${nameText(inputs.parentUid)}` : undefined,
  }),
  // The kinds are a oneof on the service: setting one clears the others, so a switch sends only the new kind
  // (the one left unset has no default and is not sent).
  wire: { read: { parentUid: (identity) => parentOf(identity.uid) ?? "" } },
  get: (client, uid) => client.identities.get(uid),
  create: (client, inputs, body) => client.identities.create(inputs.parentUid, body as IdentityCreate),
  lookup: (client, inputs) =>
    childNamed((query) => client.identities.list(query), inputs.parentUid, inputs.name),
  update: (client, uid, patch) => client.identities.update(uid, patch as IdentityUpdate),
  delete: (client, uid) => client.identities.delete(uid),
  outputsOf: (identity) => ({
    uid: identity.uid,
    createTime: identity.createTime,
  }),
});

export const resource = resourceOperations(description);

export const provider: pulumi.dynamic.ResourceProvider = dynamicProvider(resource);

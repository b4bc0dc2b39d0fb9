/**
 * The implementation of the dynamic provider of platform.iam.AccountAssociation: at most one per group, its uid is the group's.
 *
 * Update sends ONE PATCH whose updateMask lists exactly the changed fields and blocks. Removing a block
 * replaces the association instead: the SDK's PATCH cannot express "clear this block" (a mask entry
 * needs a value), so diff puts a removed block into `replaces`. Adopt takes over the group's existing
 * association (looked up by the group's uid).
 *
 * Loaded by ./account-association.provider on its first call, in the provider process.
 */
import { nameText, said } from "../../sdk/words";
import { objectEffect } from "../core/access-review";
import type * as pulumi from "@pulumi/pulumi";
import { deriveDescription, dynamicProvider, resourceOperations } from "../core/resource-provider";
import { normalize } from "../core/diff";
import {
  ACCOUNT_ASSOCIATION,
  ASSOCIATION_BLOCKS,
  type AccountAssociationInputs,
} from "./account-association.declaration";
import {
  NotFoundError,
  type AccountAssociation,
  type AccountAssociationCreate,
  type AccountAssociationUpdate,
} from "../../sdk";

const EMPTY = normalize("object", undefined);

export const description = deriveDescription<AccountAssociationInputs, AccountAssociation>({
  // At preview: what creating or changing it needs (it is governed by its own group).
  accessEffect: objectEffect({ collection: "accountAssociations", parentKey: "groupUid" }),
  declaration: ACCOUNT_ASSOCIATION,
  // One association per group, and its uid is the group's: a replacement deletes the old one first.
  uniqueBy: ["groupUid"],
  // A removed block replaces the association: the PATCH cannot clear it.
  alsoReplaces: (olds, news) =>
    ASSOCIATION_BLOCKS.filter(
      (block) => normalize("object", olds[block]) !== EMPTY && normalize("object", news[block]) === EMPTY,
    ),
  describe: (inputs) => ({
    name: inputs.name,
    where: inputs.groupUid ? said`of group ${nameText(inputs.groupUid)}` : undefined,
  }),
  wire: { read: { groupUid: (association) => association.uid } },
  get: (client, uid) => client.accountAssociations.get(uid),
  create: (client, inputs, body) =>
    client.accountAssociations.create(inputs.groupUid, body as AccountAssociationCreate),
  // The natural key is the group: its association, if it has one.
  async lookup(client, inputs) {
    try {
      return await client.accountAssociations.get(inputs.groupUid);
    } catch (err) {
      if (NotFoundError.isInstance(err)) return undefined;
      throw err;
    }
  },
  update: (client, uid, patch) => client.accountAssociations.update(uid, patch as AccountAssociationUpdate),
  delete: (client, uid) => client.accountAssociations.delete(uid),
  outputsOf: (association) => ({
    uid: association.uid,
    createTime: association.createTime,
  }),
});

export const resource = resourceOperations(description);

export const provider: pulumi.dynamic.ResourceProvider = dynamicProvider(resource);

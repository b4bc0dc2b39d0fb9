/**
 * The implementation of the dynamic provider of platform.iam.Role (custom roles). Exported as the WHOLE module so Pulumi
 * serializes a `require()` of the installed package.
 */
import { childNamed } from "../core/create";
import { objectAccess } from "../core/access-review";
import { nameText, said } from "../../sdk/words";
import { withRole, withoutRole } from "../core/live-facts";
import type * as pulumi from "@pulumi/pulumi";
import { deriveDescription, dynamicProvider, resourceOperations } from "../core/resource-provider";
import { parentOf } from "../../sdk/uidp";
import { ROLE, type RoleInputs } from "./role.declaration";
import type { Role, RoleCreate, RoleUpdate } from "../../sdk";

export const description = deriveDescription<RoleInputs, Role>({
  // At preview: what it grants (no escalation: its capabilities must be the caller's), and whom a change of its
  // capabilities gives or takes what, through every binding of it.
  ...objectAccess<Role>({
    collection: "roles",
    parentKey: "parentUid",
    reads: ["capabilities"],
    grants: (news) => ({
      capabilities: [...((news.capabilities as string[] | undefined) ?? [])],
      what: `the capabilities of role ${nameText(String(news.name))}`,
      needs: [],
    }),
    updateGrants: (olds, news) => {
      const held = new Set((olds.capabilities as string[] | undefined) ?? []);
      const added = ((news.capabilities as string[] | undefined) ?? []).filter((c) => !held.has(c));
      return {
        capabilities: added,
        what: `the capabilities added to role ${nameText(String(news.name))}`,
        needs: [],
      };
    },
    afterUpdate: (facts, uid, news) => ({
      ...facts,
      roles: facts.roles.map((r) =>
        r.uid === uid ? { ...r, capabilities: [...((news.capabilities as string[] | undefined) ?? [])] } : r,
      ),
    }),
    // A role deleted revokes its bindings (emulator/README.md, "Deleting a role").
    afterDelete: withoutRole,
    // Once written, the role (its capabilities, its name) is in the facts the rest of the run reviews against: the
    // binding of a role the same update creates says what it grants.
    written: (facts, role) => withRole(facts, { ...role, capabilities: role.capabilities ?? [] }),
    names: "role",
  }),
  declaration: ROLE,
  describe: (inputs) => ({
    name: inputs.name,
    where: inputs.parentUid ? said`under group ${nameText(inputs.parentUid)}` : undefined,
  }),
  wire: {
    read: {
      parentUid: (role) => parentOf(role.uid) ?? "",
      capabilities: (role) => [...(role.capabilities ?? [])].sort(),
    },
  },
  get: (client, uid) => client.roles.get(uid),
  create: (client, inputs, body) => client.roles.create(inputs.parentUid, body as RoleCreate),
  lookup: (client, inputs) => childNamed((query) => client.roles.list(query), inputs.parentUid, inputs.name),
  update: (client, uid, patch) => client.roles.update(uid, patch as RoleUpdate),
  delete: (client, uid) => client.roles.delete(uid),
  outputsOf: (role) => ({ uid: role.uid, createTime: role.createTime }),
});

export const resource = resourceOperations(description);

export const provider: pulumi.dynamic.ResourceProvider = dynamicProvider(resource);

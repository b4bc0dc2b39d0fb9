/**
 * The implementation of the dynamic provider of platform.iam.RoleBinding. Every input replaces, so there is no update beyond
 * recording a new profile. Exported as the WHOLE module so Pulumi serializes a `require()`.
 *
 * Its check also records the binding it claims (./access claim), so a GroupAccess or IdentityAccess of the same
 * stack that declares the binding's scope completely fails the preview, naming both.
 */
import { nameText, said } from "../../sdk/words";
import { capabilitiesOfRole, objectAccess, referenceNeeds, roleWords } from "../core/access-review";
import { bindingFact, withBinding, withoutBindings } from "../core/live-facts";
import type * as pulumi from "@pulumi/pulumi";
import {
  deriveDescription,
  dynamicProvider,
  resourceOperations,
  type ResourceOperations,
} from "../core/resource-provider";
import { parentOf } from "../../sdk/uidp";
import { ROLE_BINDING, type RoleBindingInputs } from "./role-binding.declaration";
import type { RoleBinding, RoleBindingCreate } from "../../sdk";
import { containsUnknown } from "../core/check";
import { claim, describeBinding, labelOfUrn } from "./access";

export const description = deriveDescription<RoleBindingInputs, RoleBinding>({
  // At preview: what the binding grants, to whom and where (every input replaces: a change is a new binding and
  // the old one's removal), and what granting it needs (no escalation: the role's capabilities, the references).
  // Once written, it is in the facts the rest of the run reviews against.
  ...objectAccess<RoleBinding>({
    collection: "roleBindings",
    parentKey: "groupUid",
    reads: ["identityUid", "roleUid"],
    grants: (news, facts) => ({
      capabilities: capabilitiesOfRole(facts, String(news.roleUid)),
      what: roleWords(facts, String(news.roleUid)),
      needs: referenceNeeds(String(news.roleUid), String(news.identityUid)),
    }),
    afterCreate: (facts, news) => ({
      ...facts,
      bindings: [
        ...facts.bindings,
        {
          uid: `(new) ${String(news.groupUid)} ${String(news.identityUid)} ${String(news.roleUid)}`,
          group: String(news.groupUid),
          identity: String(news.identityUid),
          role: String(news.roleUid),
        },
      ],
    }),
    afterDelete: (facts, uid) => withoutBindings(facts, (b) => b.uid === uid),
    written: (facts, binding) => withBinding(facts, bindingFact(binding)),
  }),
  declaration: ROLE_BINDING,
  describe: (inputs) => ({
    where:
      inputs.groupUid !== undefined
        ? said`of role ${nameText(String(inputs.roleUid))} to identity ${nameText(String(inputs.identityUid))} on group ${nameText(inputs.groupUid)}`
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

const kit = resourceOperations(description);

/** The kit's check, then the binding's claim against the authoritative resources checked before it. */
async function check(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  urn?: string,
): ReturnType<ResourceOperations["check"]> {
  const result = await kit.check(olds, news, urn);
  if ((result.failures ?? []).length > 0 || containsUnknown([news.groupUid, news.identityUid, news.roleUid]))
    return result;
  const binding = {
    groupUid: String(news.groupUid),
    identityUid: String(news.identityUid),
    roleUid: String(news.roleUid),
  };
  const label =
    (urn !== undefined ? labelOfUrn(urn) : undefined) ?? `RoleBinding of ${describeBinding(binding)}`;
  const conflicts = claim(urn ?? `platform:iam:RoleBinding ${label}`, label, { kind: "binding", binding });
  return conflicts.length === 0
    ? result
    : { ...result, failures: conflicts.map((reason) => ({ property: "", reason })) };
}

export const resource: ResourceOperations = { ...kit, check };

export const provider: pulumi.dynamic.ResourceProvider = dynamicProvider(resource);

/**
 * The implementation of the dynamic provider of platform.iam.IdentityProvider (an organization's OIDC login).
 *
 * `clientSecret` is write-only in the API; its declaration says so and the shared kit keeps it in state (see
 * defineResourceProvider). This module nests the flat OIDC inputs into the API's `oidc` block: update sends
 * the block when any OIDC field changed, with `clientSecret` only when it changed (the service keeps the
 * stored secret when the PATCH leaves it out).
 *
 * Loaded by ./identity-provider.provider on its first call, in the provider process.
 */
import { childNamed } from "../core/create";
import { nameText, said } from "../../sdk/words";
import { capabilitiesOfRole, objectEffect, referenceNeeds, roleWords } from "../core/access-review";
import type * as pulumi from "@pulumi/pulumi";
import {
  compact,
  deriveDescription,
  dynamicProvider,
  resourceOperations,
  type ResourceOperations,
} from "../core/resource-provider";
import { parentOf } from "../../sdk/uidp";
import { IDENTITY_PROVIDER, type IdentityProviderInputs, OIDC_KEYS } from "./identity-provider.declaration";
import type { IdentityProvider, IdentityProviderCreate, IdentityProviderUpdate } from "../../sdk";

type Props = Record<string, unknown>;

/** The inputs as the kit sees them: the live object never has a clientSecret to rebuild. */
type KitInputs = Omit<IdentityProviderInputs, "clientSecret"> & { clientSecret?: string | undefined };

/** The API's oidc block from the flat inputs; the secret only when asked for. */
function oidcOf(inputs: KitInputs, withSecret: boolean) {
  return compact({
    issuer: inputs.issuer,
    clientId: inputs.clientId,
    clientSecret: withSecret ? inputs.clientSecret : undefined,
    additionalScopes: inputs.additionalScopes ?? [],
    groupsClaim: inputs.groupsClaim ?? "",
    pkceEnabled: inputs.pkceEnabled ?? false,
  });
}

/** Each OIDC input goes into the `oidc` block, whole; the secret only at create or when it changed. */
const sendOidc = (inputs: KitInputs, mask: readonly string[] | undefined) => ({
  oidc: oidcOf(inputs, mask === undefined || mask.includes("clientSecret")),
});

export const description = deriveDescription<KitInputs, IdentityProvider>({
  // At preview: what creating or changing it needs; its default role is a grant (no escalation).
  accessEffect: objectEffect({
    collection: "identityProviders",
    parentKey: "parentUid",
    reads: ["defaultRole"],
    grants: (news, facts) => ({
      capabilities: capabilitiesOfRole(facts, String(news.defaultRole)),
      what: `default ${roleWords(facts, String(news.defaultRole))}`,
      needs: referenceNeeds(String(news.defaultRole)),
    }),
    updateGrants: (olds, news, facts) =>
      olds.defaultRole === news.defaultRole
        ? undefined
        : {
            capabilities: capabilitiesOfRole(facts, String(news.defaultRole)),
            what: `default ${roleWords(facts, String(news.defaultRole))}`,
            needs: referenceNeeds(String(news.defaultRole)),
          },
  }),
  declaration: IDENTITY_PROVIDER,
  describe: (inputs) => ({
    name: inputs.name,
    where: inputs.parentUid ? said`in organization ${nameText(inputs.parentUid)}` : undefined,
  }),
  wire: {
    send: Object.fromEntries(OIDC_KEYS.map((key) => [key, sendOidc])),
    read: {
      parentUid: (idp) => parentOf(idp.uid) ?? "",
      defaultRole: (idp) => idp.defaultRole ?? "",
      issuer: (idp) => idp.oidc?.issuer ?? "",
      clientId: (idp) => idp.oidc?.clientId ?? "",
      // The API never returns it (the kit carries it, being write-only).
      clientSecret: () => undefined,
      additionalScopes: (idp) => idp.oidc?.additionalScopes,
      groupsClaim: (idp) => idp.oidc?.groupsClaim,
      pkceEnabled: (idp) => idp.oidc?.pkceEnabled,
    },
  },
  get: (client, uid) => client.identityProviders.get(uid),
  create: (client, inputs, body) =>
    client.identityProviders.create(inputs.parentUid, body as IdentityProviderCreate),
  lookup: (client, inputs) =>
    childNamed((query) => client.identityProviders.list(query), inputs.parentUid, inputs.name),
  update: (client, uid, patch) => client.identityProviders.update(uid, patch as IdentityProviderUpdate),
  delete: (client, uid) => client.identityProviders.delete(uid),
  outputsOf: (idp) => ({ uid: idp.uid, createTime: idp.createTime }),
});

const kit = resourceOperations(description);

/** Optional inputs the API reports with a value even when unset, defaulted so diff never sees phantoms. */
function withDefaults(news: Props): Props {
  return { ...news, pkceEnabled: news.pkceEnabled ?? false };
}

export const resource: ResourceOperations = {
  ...kit,
  check: (olds, news) => kit.check(olds, withDefaults(news)),
};

export const provider: pulumi.dynamic.ResourceProvider = dynamicProvider(resource);

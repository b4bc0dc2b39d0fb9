/**
 * The implementation of the dynamic provider of platform.iam.IdentityProvider (an organization's OIDC login).
 *
 * `clientSecret` is write-only in the API; its declaration says so and the shared kit keeps it in state (see
 * defineResourceProvider). This module nests the flat OIDC inputs into the API's `oidc` block: update sends
 * the block when any OIDC field changed, with `clientSecret` only when it changed (the service keeps the
 * stored secret when the PATCH leaves it out).
 *
 * Loaded by ./identity-provider.provider on its first call, in the provider process.
 *
 * May import: ../core, ../../sdk, ./identity-provider.declaration.
 */
import type * as pulumi from "@pulumi/pulumi";
import { compact, defineResourceProvider, type ResourceDescription } from "../core/resource-provider";
import { parentOf } from "../../sdk/uidp";
import { IDENTITY_PROVIDER, type IdentityProviderInputs, OIDC_KEYS } from "./identity-provider.declaration";
import type { IdentityProvider } from "../../sdk";

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

export const description: ResourceDescription<KitInputs, IdentityProvider> = {
  declaration: IDENTITY_PROVIDER,
  describe: (inputs) => ({
    name: inputs.name,
    where: inputs.parentUid ? `in organization ${inputs.parentUid}` : undefined,
  }),
  get: (client, uid) => client.identityProviders.get(uid),
  create: (client, inputs) =>
    client.identityProviders.create(inputs.parentUid, {
      name: inputs.name,
      description: inputs.description,
      defaultRole: inputs.defaultRole,
      oidc: oidcOf(inputs, true),
    }),
  async lookup(client, inputs) {
    for await (const idp of client.identityProviders.list({
      childrenOf: inputs.parentUid,
      name: inputs.name,
      pageSize: 200,
    })) {
      if (idp.name === inputs.name && parentOf(idp.uid) === inputs.parentUid) return idp;
    }
    return undefined;
  },
  update: (client, uid, inputs, fields) =>
    client.identityProviders.update(uid, {
      name: fields.includes("name") ? inputs.name : undefined,
      description: fields.includes("description") ? (inputs.description ?? "") : undefined,
      defaultRole: fields.includes("defaultRole") ? inputs.defaultRole : undefined,
      oidc: OIDC_KEYS.some((key) => fields.includes(key))
        ? oidcOf(inputs, fields.includes("clientSecret"))
        : undefined,
    }),
  delete: (client, uid) => client.identityProviders.delete(uid),
  // clientSecret is absent here on purpose: the API never returns it (the kit carries it, being write-only).
  inputsOf: (idp) => ({
    parentUid: parentOf(idp.uid) ?? "",
    name: idp.name,
    description: idp.description ?? "",
    defaultRole: idp.defaultRole ?? "",
    issuer: idp.oidc?.issuer ?? "",
    clientId: idp.oidc?.clientId ?? "",
    additionalScopes: idp.oidc?.additionalScopes ?? [],
    groupsClaim: idp.oidc?.groupsClaim ?? "",
    pkceEnabled: idp.oidc?.pkceEnabled ?? false,
  }),
  outputsOf: (idp) => ({ uid: idp.uid, createTime: idp.createTime }),
};

const kit = defineResourceProvider(description);

/** Optional inputs the API reports with a value even when unset, defaulted so diff never sees phantoms. */
function withDefaults(news: IdentityProviderInputs): IdentityProviderInputs {
  return { ...news, pkceEnabled: news.pkceEnabled ?? false };
}

export const provider: pulumi.dynamic.ResourceProvider = {
  ...kit,
  async check(olds: IdentityProviderInputs, news: IdentityProviderInputs) {
    return kit.check!(olds, withDefaults(news));
  },
};

/**
 * platform.iam.getIdentityProviders, implementation (loaded by ./get-identity-providers on the first call): the identity providers of an
 * organization, with an optional exact-name filter and ordering, paged through 200 at a time. The
 * results carry no client secret (the API never returns it).
 */
import { z } from "zod";
import { IdentityProvider, Uidp } from "../../sdk/schemas";
import { ProfileArgsSchema, listDataSource, type DataSourceFunction } from "../core/data-source";
import type { GetIdentityProvidersArgs, GetIdentityProvidersResult } from "../types.generated";
import { isRoot } from "../../sdk/uidp";

/** @internal */
export const GetIdentityProvidersArgsSchema = z.object({
  organizationUid: Uidp.refine((uid) => isRoot(uid), {
    error: "must be an organization (a root group uid), not a folder",
  }).describe("The organization whose identity providers to list."),
  name: z.string().optional().describe("Only identity providers with exactly this name."),
  orderBy: z.string().optional().describe('Server-side order, e.g. "name" or "created_at desc".'),
  ...ProfileArgsSchema.shape,
});

const identityProviders = listDataSource({
  token: "platform:iam:getIdentityProviders",
  summary: "The identity providers of an organization, with an optional name filter.",
  args: GetIdentityProvidersArgsSchema,
  key: "identityProviders",
  item: IdentityProvider,
  doc: "Every matching identity provider.",
  list: (client, { organizationUid, ...filters }, page) =>
    client.identityProviders.list({ ...filters, childrenOf: organizationUid, ...page }),
});

/** @internal */
export const GetIdentityProvidersResultSchema = identityProviders.result;

/** platform:iam:getIdentityProviders, declared once: the catalogue (../catalogue) lists it, schema.json and the docs derive from it. */
export const declaration = identityProviders.declaration;

export const getIdentityProviders: DataSourceFunction<GetIdentityProvidersArgs, GetIdentityProvidersResult> =
  identityProviders.run;

/**
 * platform.iam.getIdentityProviders, implementation (loaded by ./get-identity-providers on the first call): the identity providers of an
 * organization, with an optional exact-name filter and ordering, paged through 200 at a time. The
 * results carry no client secret (the API never returns it).
 *
 * May import: @pulumi/pulumi, zod, ../core/program-client, ../../sdk.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { declareDataSource } from "../core/declaration";
import { IdentityProvider, Uidp } from "../../sdk/schemas";
import {
  DATA_SOURCE_PAGE_SIZE,
  ProfileArgsSchema,
  collect,
  parseArgs,
  withProgramClient,
} from "../core/program-client";
import type { GetIdentityProvidersArgs, GetIdentityProvidersResult } from "../types";

/** @internal */
export const GetIdentityProvidersArgsSchema = z.object({
  organizationUid: Uidp.refine((uid) => !uid.includes("/"), {
    error: "must be an organization (a root group uid), not a folder",
  }).describe("The organization whose identity providers to list."),
  name: z.string().optional().describe("Only identity providers with exactly this name."),
  orderBy: z.string().optional().describe('Server-side order, e.g. "name" or "created_at desc".'),
  ...ProfileArgsSchema.shape,
});

/** @internal */
export const GetIdentityProvidersResultSchema = z.object({
  identityProviders: z.array(IdentityProvider).describe("Every matching identity provider."),
});

/** platform:iam:getIdentityProviders, declared once: the catalogue (../catalogue) lists it, schema.json and the docs derive from it. */
export const declaration = declareDataSource({
  token: "platform:iam:getIdentityProviders",
  summary: "The identity providers of an organization, with an optional name filter.",
  args: GetIdentityProvidersArgsSchema,
  result: GetIdentityProvidersResultSchema,
  invoke: (args) => getIdentityProviders(args as GetIdentityProvidersArgs),
});

const TOKEN = declaration.token;

export async function getIdentityProviders(
  args: GetIdentityProvidersArgs,
  _opts?: pulumi.InvokeOptions,
): Promise<GetIdentityProvidersResult> {
  const { profile, organizationUid, ...filters } = parseArgs(TOKEN, GetIdentityProvidersArgsSchema, args);
  return withProgramClient(profile, { action: "list", type: TOKEN }, async (client) => ({
    identityProviders: await collect(
      client.identityProviders.list({
        ...filters,
        childrenOf: organizationUid,
        pageSize: DATA_SOURCE_PAGE_SIZE,
      }),
    ),
  }));
}

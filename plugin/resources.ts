/**
 * The resources the plugin serves, by the schema's type token: each one's shared description (fields, inputsOf)
 * and its provider object, imported from the same `<stem>.implementation` modules the dynamic path loads, so a
 * resource is described once. Only what the dynamic contract has no word for is added here: which properties are
 * secret, and which replacements must delete the old object first.
 *
 * May import: ../provider (implementation and schema modules), ../schema.json.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ResourceDescription } from "../provider/core/resource-provider";
import * as group from "../provider/iam/group.implementation";
import * as identity from "../provider/iam/identity.implementation";
import * as role from "../provider/iam/role.implementation";
import * as roleBinding from "../provider/iam/role-binding.implementation";
import * as identityProvider from "../provider/iam/identity-provider.implementation";
import * as groupInvite from "../provider/iam/group-invite.implementation";
import * as accountAssociation from "../provider/iam/account-association.implementation";
import { IDENTITY_PROVIDER_SECRETS } from "../provider/iam/identity-provider-schema";
import { GROUP_INVITE_SECRETS } from "../provider/iam/group-invite-schema";
import schema from "../schema.json";

export interface ServedResource {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- every resource's own input and object types
  description: ResourceDescription<any, any>;
  provider: pulumi.dynamic.ResourceProvider;
  /** Properties that are always secret, in inputs and outputs (schema.json marks them `secret`). */
  secrets: readonly string[];
  /** Every property of the resource, inputs and outputs (schema.json). */
  properties: readonly string[];
  /** Properties only the service sets. */
  outputOnly: readonly string[];
  /**
   * Inputs the API never returns (an identity provider's clientSecret): state knows them only from the program.
   * An imported object has none in state; diff then takes the program's value as the live one.
   */
  writeOnly?: readonly string[];
}

type SchemaResource = { inputProperties: Record<string, unknown>; properties: Record<string, unknown> };

function schemaOf(token: string): SchemaResource {
  const spec = (schema.resources as Record<string, SchemaResource>)[token];
  if (spec === undefined) throw new Error(`schema.json has no resource ${token}`);
  return spec;
}

function served(
  module: { description: ServedResource["description"]; provider: pulumi.dynamic.ResourceProvider },
  extra: { secrets?: readonly string[]; writeOnly?: readonly string[] } = {},
): [string, ServedResource] {
  const token = module.description.type;
  return [
    token,
    {
      description: module.description,
      provider: module.provider,
      secrets: extra.secrets ?? [],
      properties: Object.keys(schemaOf(token).properties),
      outputOnly: Object.keys(schemaOf(token).properties).filter(
        (key) => !(key in schemaOf(token).inputProperties),
      ),
      ...(extra.writeOnly ? { writeOnly: extra.writeOnly } : {}),
    },
  ];
}

export const RESOURCES: ReadonlyMap<string, ServedResource> = new Map([
  served(group),
  served(identity),
  served(role),
  served(roleBinding),
  served(identityProvider, { secrets: IDENTITY_PROVIDER_SECRETS, writeOnly: ["clientSecret"] }),
  served(groupInvite, { secrets: GROUP_INVITE_SECRETS }),
  served(accountAssociation),
]);

/** The resource a type token names, or an error that says which tokens exist. */
export function resourceOf(token: string): ServedResource {
  const resource = RESOURCES.get(token);
  if (resource === undefined) {
    throw new Error(
      `unknown resource type ${token}; this provider serves ${[...RESOURCES.keys()].join(", ")}`,
    );
  }
  return resource;
}

/** The token of a resource from its URN (`urn:pulumi:stack::project::platform:iam:Group::name`). */
export function typeOfUrn(urn: string): string {
  const parts = urn.split("::");
  const qualified = parts[2] ?? "";
  return qualified.split("$").pop() ?? qualified;
}

/**
 * The resources the plugin serves, by the schema's type token: the catalogue's entries (provider/catalogue), each
 * with its declaration and the provider object the dynamic path uses too, so a resource is described once.
 */
import { RESOURCES as CATALOGUE, type CatalogueResource } from "../provider/catalogue";

export type ServedResource = CatalogueResource;

export const RESOURCES: ReadonlyMap<string, ServedResource> = new Map(
  CATALOGUE.map((resource) => [resource.declaration.token, resource]),
);

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

/**
 * platform.iam: groups, identities, custom roles, role bindings, identity providers, group invites and
 * account associations, and their data sources.
 */
// The resource classes, their Args and the Args of their object types (generated from the declarations).
export * from "./resources.generated";
// The data sources (getX and getXOutput), generated from their declarations.
export * from "./data-sources.generated";

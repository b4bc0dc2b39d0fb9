/**
 * platform.iam: groups, identities, custom roles, role bindings, identity providers, group invites and
 * account associations, and their data sources.
 */
// The resource classes, their Args and the Args of their object types (generated from the declarations).
export * from "./resources";
export * from "./get-roles";
export * from "./get-role";
export * from "./get-group";
export * from "./get-identity";
export * from "./get-identity-providers";

/** platform.iam: groups, identities, custom roles and role bindings, and their data sources. */
export { Group, type GroupArgs } from "./group";
export { Identity, type IdentityArgs, type ClaimMatchArgs, type ClaimMatch } from "./identity";
export { Role, type RoleArgs } from "./role";
export { RoleBinding, type RoleBindingArgs, type BindingRef } from "./role-binding";
export * from "./get-roles";
export * from "./get-role";
export * from "./get-group";
export * from "./get-identity";

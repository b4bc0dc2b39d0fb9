/**
 * platform.iam: groups, identities, custom roles, role bindings (one by one, or authoritatively per group or per
 * identity), identity providers, group invites and account associations, and their data sources.
 */
export { Group, type GroupArgs } from "./group";
export { Identity, type IdentityArgs, type ClaimMatchArgs, type ClaimMatch } from "./identity";
export { Role, type RoleArgs } from "./role";
export { RoleBinding, type RoleBindingArgs } from "./role-binding";
export { GroupAccess, type GroupAccessArgs } from "./group-access";
export { IdentityAccess, type IdentityAccessArgs } from "./identity-access";
export { IdentityProvider, type IdentityProviderArgs } from "./identity-provider";
export { GroupInvite, type GroupInviteArgs } from "./group-invite";
export {
  AccountAssociation,
  type AccountAssociationArgs,
  type AccountAssociationBlocks,
  type AmazonArgs,
  type AzureArgs,
  type GoogleArgs,
  type ChainguardArgs,
  type GitHubArgs,
  type GitHubInstallationArgs,
} from "./account-association";
export * from "./get-roles";
export * from "./get-role";
export * from "./get-group";
export * from "./get-identity";
export * from "./get-identity-providers";

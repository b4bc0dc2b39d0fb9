/** The SDK's public surface: the client, its errors, pages, options, retry helper and the wire schemas. */
export * from "./client";
export * from "./errors";
export * from "./schemas";
export * from "./pagination";
export * from "./config";
export * from "./retry";
export {
  resourcePath,
  encodeQuery,
  wireQueryName,
  type ListQuery,
  type PageQuery,
  type UidpFilters,
} from "./core";
export { TokenCache } from "./token-cache";
export { parentOf } from "./uidp";
export { SDK_VERSION } from "./version";
export { Groups, type GroupListQuery } from "./resources/groups";
export { Identities, type IdentityListQuery, type IdentityLookupQuery } from "./resources/identities";
export { Roles, type RoleListQuery } from "./resources/roles";
export {
  RoleBindings,
  ROLE_BINDING_BATCH_MAX,
  type RoleBindingBatchEntry,
  type RoleBindingListQuery,
} from "./resources/role-bindings";
export { IdentityProviders, type IdentityProviderListQuery } from "./resources/identity-providers";
export { GroupInvites, type GroupInviteListQuery } from "./resources/group-invites";
export { AccountAssociations, type AccountAssociationListQuery } from "./resources/account-associations";
export { Repos, type RepoListQuery } from "./resources/repos";
export { Tags, type TagListQuery } from "./resources/tags";
export { Advisories, type AdvisoryListQuery } from "./resources/advisories";
export { V1, V1Groups, V1Identities, V1Repos, type V1ListQuery } from "./resources/v1";

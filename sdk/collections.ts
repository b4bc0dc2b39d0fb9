/**
 * The one table of the API's collections: every fact about a kind of object that more than one layer needs, written
 * once. The SDK's resources and the emulator's routes take their paths from it, the access model its capability
 * stems and positions, the client and the emulator which kinds propagate, the store its kinds, every output its
 * words for a person; `test/sdk/collections.test.ts` walks it and fails where a consumer misses a row (the
 * emulator's route table, the SDK's client, the gRPC messages, the OpenAPI's Capability enum, the words). Adding a
 * kind is a row here plus the kind's own behaviour (its schemas, resource, routes).
 *
 * Each row, from the spec and the OpenAPI (spec/), never from our SDK:
 *   - `singular`: the API's own word for one (the OpenAPI's schema, spaced: "role binding"), as its errors say it;
 *   - `path`: the REST collection (the OpenAPI's paths; the gRPC `(google.api.http)` bindings);
 *   - `message`: the gRPC message of one object (the published `.proto` files);
 *   - `capability`: the stem of the capabilities an operation on it needs, `<stem>_CREATE` … (OpenAPI
 *     `platform.capabilities.Capability`);
 *   - `position`: the group whose bindings govern an object, read from its uid (AIP-211; sdk/access-model rule 4):
 *     the object itself (a group, an account association, whose uid is its group's), its parent, or its parent's
 *     parent (a tag, under a repo, under a group);
 *   - `propagates`: whether the service takes a while to make a new one effective for authorization (a group and
 *     what is below it, a role, a binding: sdk/propagation);
 *   - `noun`: what a person calls one (../sdk/words), `root` where a root-level one is called otherwise.
 */

/** Where the group governing an object sits, from its uid. */
export type Position = "self" | "parent" | "grandparent";

/** One collection's facts (see the module's comment). */
export interface CollectionRow {
  singular: string;
  path: `/${string}/v2beta1/${string}`;
  message: string;
  capability: `CAP_${string}`;
  position: Position;
  propagates: boolean;
  noun: { under: string; root?: string };
}

export const COLLECTIONS = {
  groups: {
    singular: "group",
    path: "/iam/v2beta1/groups",
    message: "chainguard.platform.iam.v2beta1.Group",
    capability: "CAP_IAM_GROUPS",
    position: "self",
    propagates: true,
    noun: { root: "organization", under: "folder" },
  },
  identities: {
    singular: "identity",
    path: "/iam/v2beta1/identities",
    message: "chainguard.platform.iam.v2beta1.Identity",
    capability: "CAP_IAM_IDENTITY",
    position: "parent",
    propagates: false,
    noun: { root: "user", under: "workload identity" },
  },
  roles: {
    singular: "role",
    path: "/iam/v2beta1/roles",
    message: "chainguard.platform.iam.v2beta1.Role",
    capability: "CAP_IAM_ROLES",
    position: "parent",
    propagates: true,
    noun: { root: "built-in role", under: "role" },
  },
  roleBindings: {
    singular: "role binding",
    path: "/iam/v2beta1/roleBindings",
    message: "chainguard.platform.iam.v2beta1.RoleBinding",
    capability: "CAP_IAM_ROLE_BINDINGS",
    position: "parent",
    propagates: true,
    noun: { under: "role binding" },
  },
  identityProviders: {
    singular: "identity provider",
    path: "/iam/v2beta1/identityProviders",
    message: "chainguard.platform.iam.v2beta1.IdentityProvider",
    capability: "CAP_IAM_IDENTITY_PROVIDERS",
    position: "parent",
    propagates: false,
    noun: { under: "identity provider" },
  },
  groupInvites: {
    singular: "group invite",
    path: "/iam/v2beta1/groupInvites",
    message: "chainguard.platform.iam.v2beta1.GroupInvite",
    capability: "CAP_IAM_GROUP_INVITES",
    position: "parent",
    propagates: false,
    noun: { under: "invite" },
  },
  accountAssociations: {
    singular: "account association",
    path: "/iam/v2beta1/accountAssociations",
    message: "chainguard.platform.iam.v2beta1.AccountAssociation",
    capability: "CAP_IAM_ACCOUNT_ASSOCIATIONS",
    position: "self",
    propagates: false,
    noun: { under: "account association" },
  },
  repos: {
    singular: "repo",
    path: "/registry/v2beta1/repos",
    message: "chainguard.platform.registry.v2beta1.Repo",
    capability: "CAP_REPO",
    position: "parent",
    propagates: false,
    noun: { under: "repo" },
  },
  tags: {
    singular: "tag",
    path: "/registry/v2beta1/tags",
    message: "chainguard.platform.registry.v2beta1.Tag",
    capability: "CAP_TAG",
    position: "grandparent",
    propagates: false,
    noun: { under: "tag" },
  },
  advisories: {
    singular: "advisory",
    path: "/vulnerabilities/v2beta1/advisories",
    message: "chainguard.platform.vulnerabilities.v2beta1.Advisory",
    capability: "CAP_ADVISORIES",
    position: "parent",
    propagates: false,
    noun: { under: "advisory" },
  },
} as const satisfies Readonly<Record<string, CollectionRow>>;

/** An API collection's name: the client's property, the store's kind. */
export type CollectionName = keyof typeof COLLECTIONS;

/** Every collection, in the table's order (containers before what they contain). */
export const COLLECTION_NAMES = Object.keys(COLLECTIONS) as CollectionName[];

/** The collections whose new objects take a while to be effective for authorization. */
export const PROPAGATING = COLLECTION_NAMES.filter((c) => COLLECTIONS[c].propagates);

/** The IAM collections (under `/iam/`): those a client creates and changes (the registry's and advisories' are read). */
export const IAM_COLLECTIONS = COLLECTION_NAMES.filter((c): c is IamCollection =>
  COLLECTIONS[c].path.startsWith("/iam/"),
);

/** The name of an IAM collection, read from its path. */
export type IamCollection = {
  [K in CollectionName]: (typeof COLLECTIONS)[K]["path"] extends `/iam/${string}` ? K : never;
}[CollectionName];

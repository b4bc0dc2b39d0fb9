/**
 * The emulator's built-in roles: names, descriptions, capabilities and their fixed 40-hex uids (sha1 of the name),
 * listed alongside custom roles. The emulator plays the service, so this is where the project states them; the
 * access model (../sdk/access-model.ts) never names them and reads them through the API. It imports nothing but
 * node:crypto (and the Capability type, erased), so the policy pack (../policy) bundles it without the emulator's other
 * modules.
 */
import { createHash } from "node:crypto";
import type { Capability } from "../sdk/schemas/capabilities";

type IamKind =
  | "GROUPS"
  | "GROUP_INVITES"
  | "ROLES"
  | "ROLE_BINDINGS"
  | "ACCOUNT_ASSOCIATIONS"
  | "IDENTITY"
  | "IDENTITY_PROVIDERS";
type Verb = "CREATE" | "UPDATE" | "LIST" | "DELETE";
const IAM_KINDS: IamKind[] = [
  "GROUPS",
  "GROUP_INVITES",
  "ROLES",
  "ROLE_BINDINGS",
  "ACCOUNT_ASSOCIATIONS",
  "IDENTITY",
  "IDENTITY_PROVIDERS",
];
const VERBS: Verb[] = ["CREATE", "UPDATE", "LIST", "DELETE"];
/** Each kind's capability of each verb (an invite has no UPDATE); a name the API lacks does not type-check. */
const iamCaps = (kinds: IamKind[], verbs: Verb[]): Capability[] =>
  kinds
    .flatMap((k) => verbs.map((v) => `CAP_IAM_${k}_${v}` as const))
    .filter(
      (c): c is Exclude<typeof c, "CAP_IAM_GROUP_INVITES_UPDATE"> => c !== "CAP_IAM_GROUP_INVITES_UPDATE",
    );
const REGISTRY_READ: Capability[] = [
  "CAP_REPO_LIST",
  "CAP_TAG_LIST",
  "CAP_MANIFEST_LIST",
  "CAP_REPO_BLOBS_GET",
];
const REGISTRY_ALL: Capability[] = [
  ...REGISTRY_READ,
  "CAP_REPO_CREATE",
  "CAP_REPO_UPDATE",
  "CAP_REPO_DELETE",
  "CAP_TAG_CREATE",
  "CAP_TAG_UPDATE",
  "CAP_TAG_DELETE",
];

export interface BuiltinRole {
  uid: string;
  name: string;
  description: string;
  capabilities: string[];
}

function builtin(name: string, description: string, capabilities: Capability[]): BuiltinRole {
  return {
    uid: createHash("sha1").update(name).digest("hex"),
    name,
    description,
    capabilities: [...new Set(capabilities)].sort(),
  };
}

/** Built-in roles: fixed 40-hex uids (sha1 of the name), listed alongside custom roles. */
export const BUILTIN_ROLES: readonly BuiltinRole[] = [
  builtin("owner", "Full control of the group and everything below it", [
    ...iamCaps(IAM_KINDS, VERBS),
    ...REGISTRY_ALL,
    "CAP_ADVISORIES_LIST",
  ]),
  builtin("editor", "Create, update and delete groups, identities, roles and role bindings", [
    ...iamCaps(["GROUPS", "IDENTITY", "ROLES", "ROLE_BINDINGS"], VERBS),
    ...iamCaps(["GROUP_INVITES", "ACCOUNT_ASSOCIATIONS", "IDENTITY_PROVIDERS"], ["LIST"]),
    ...REGISTRY_READ,
    "CAP_ADVISORIES_LIST",
  ]),
  builtin("viewer", "Read-only access", [
    ...iamCaps(IAM_KINDS, ["LIST"]),
    "CAP_REPO_LIST",
    "CAP_TAG_LIST",
    "CAP_MANIFEST_LIST",
    "CAP_ADVISORIES_LIST",
  ]),
  builtin("registry.pull", "Pull images from the registry", REGISTRY_READ),
];

const BUILTIN_BY_UID = new Map(BUILTIN_ROLES.map((r) => [r.uid, r]));

export function builtinRole(uid: string): BuiltinRole | undefined {
  return BUILTIN_BY_UID.get(uid);
}

export function builtinRoleByName(name: string): BuiltinRole {
  const role = BUILTIN_ROLES.find((r) => r.name === name);
  if (role === undefined) throw new Error(`no built-in role ${name}`);
  return role;
}

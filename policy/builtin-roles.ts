/**
 * The built-in roles as the pack knows them: their names, their capabilities, and the uids the emulator gives them
 * (sha1 of the name). The emulator's table (../emulator/access.ts, BUILTIN_ROLES) is the project's statement of
 * them; the pack repeats it rather than importing it, because that module pulls the emulator's error types and
 * zod into the bundle (three times its size), and ../test/policy/drift.test.ts fails when the two differ.
 *
 * May import: node:crypto.
 */
import { createHash } from "node:crypto";

export interface BuiltinRoleFacts {
  uid: string;
  name: string;
  capabilities: string[];
}

const VERBS = ["CREATE", "UPDATE", "LIST", "DELETE"];
const IAM = [
  "GROUPS",
  "GROUP_INVITES",
  "ROLES",
  "ROLE_BINDINGS",
  "ACCOUNT_ASSOCIATIONS",
  "IDENTITY",
  "IDENTITY_PROVIDERS",
];
const iam = (kinds: string[], verbs: string[]) =>
  kinds
    .flatMap((k) => verbs.map((v) => `CAP_IAM_${k}_${v}`))
    .filter((c) => c !== "CAP_IAM_GROUP_INVITES_UPDATE");
const REGISTRY_READ = ["CAP_REPO_LIST", "CAP_TAG_LIST", "CAP_MANIFEST_LIST", "CAP_REPO_BLOBS_GET"];
const REGISTRY_WRITE = ["REPO", "TAG"].flatMap((k) =>
  ["CREATE", "UPDATE", "DELETE"].map((v) => `CAP_${k}_${v}`),
);

const role = (name: string, capabilities: string[]): BuiltinRoleFacts => ({
  uid: createHash("sha1").update(name).digest("hex"),
  name,
  capabilities: [...new Set(capabilities)].sort(),
});

export const BUILTIN_ROLES: readonly BuiltinRoleFacts[] = [
  role("owner", [...iam(IAM, VERBS), ...REGISTRY_READ, ...REGISTRY_WRITE, "CAP_ADVISORIES_LIST"]),
  role("editor", [
    ...iam(["GROUPS", "IDENTITY", "ROLES", "ROLE_BINDINGS"], VERBS),
    ...iam(["GROUP_INVITES", "ACCOUNT_ASSOCIATIONS", "IDENTITY_PROVIDERS"], ["LIST"]),
    ...REGISTRY_READ,
    "CAP_ADVISORIES_LIST",
  ]),
  role("viewer", [
    ...iam(IAM, ["LIST"]),
    "CAP_REPO_LIST",
    "CAP_TAG_LIST",
    "CAP_MANIFEST_LIST",
    "CAP_ADVISORIES_LIST",
  ]),
  role("registry.pull", REGISTRY_READ),
];

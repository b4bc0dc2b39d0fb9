/**
 * How the pack reads the resources of both fronts: a dynamic resource (TypeScript programs using the package's
 * classes) has the type `pulumi-nodejs:dynamic/iam:Identity`, a native plugin resource (Python, Go, YAML, and
 * TypeScript programs using the generated SDK) `platform:iam:Identity`; both carry the declared inputs under the
 * same names (the dynamic one adds `__provider`). A test checks these tokens against the provider's catalogue.
 *
 * Values unknown during a preview (a uid not yet assigned) are read through `known`, which turns @pulumi/policy's
 * UnknownValueError into UNKNOWN, so a rule skips what it cannot know yet and checks it again at `up`.
 */
import { UnknownValueError } from "@pulumi/policy";
import { resourceText } from "../sdk/words";

/** The platform resources the pack reads, by the name after `platform:iam:`. */
export const RESOURCE_KINDS = [
  "Identity",
  "Role",
  "RoleBinding",
  "Group",
  "GroupInvite",
  "IdentityProvider",
  "GroupAccess",
  "IdentityAccess",
] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

const NATIVE_PREFIX = "platform:iam:";
const DYNAMIC_PREFIX = "pulumi-nodejs:dynamic/iam:";

/** The kind of a resource type of either front, or undefined for anything else. */
export function kindOf(type: string): ResourceKind | undefined {
  const name = type.startsWith(NATIVE_PREFIX)
    ? type.slice(NATIVE_PREFIX.length)
    : type.startsWith(DYNAMIC_PREFIX)
      ? type.slice(DYNAMIC_PREFIX.length)
      : undefined;
  return (RESOURCE_KINDS as readonly string[]).includes(name ?? "") ? (name as ResourceKind) : undefined;
}

/** Both type tokens of a kind: the native plugin's and the dynamic resource's. */
export function typesOf(kind: ResourceKind): [string, string] {
  return [NATIVE_PREFIX + kind, DYNAMIC_PREFIX + kind];
}

export const UNKNOWN: unique symbol = Symbol("unknown during preview");
export type Maybe<T> = T | typeof UNKNOWN;

/** `read()`, or UNKNOWN when it touches a value the engine does not know yet (a preview). */
export function known<T>(read: () => T): Maybe<T> {
  try {
    return read();
  } catch (error) {
    if (error instanceof UnknownValueError) return UNKNOWN;
    throw error;
  }
}

/** A string field, or undefined when it is absent or empty (the providers treat "" as absent). */
export function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** A resource's name for messages: its kind and logical name, quoted as every output quotes it (../sdk/words). */
export function describe(name: string, type: string): string {
  return resourceText(kindOf(type) ?? type, name);
}

/** The built-in role uid the emulator (and so the quick start) gives `owner`: sha1("owner"). */
export const EMULATOR_OWNER_ROLE_UID = "579233b2c479241523cba5e3af55d0f50f2d6414";

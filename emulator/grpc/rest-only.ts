/**
 * REST-only members of a v1 answer, by message, and why: the members the REST face sends that the published
 * message has no field for, so the gRPC face cannot send them. Each is there because the spec says so (it wins
 * for REST); the published message is followed everywhere else. This is the one list: the gRPC face's encoder
 * (./json.ts) leaves these out of a response and nothing else, so any other member a message
 * lacks fails its encoding, and test/emulator/v1-wire.test.ts decodes every v1 answer into its message minus
 * exactly this list.
 */
import type { DescMessage, JsonObject, JsonValue } from "@bufbuild/protobuf";

export interface RestOnlyMembers {
  /** JSON names, as the REST answer spells them. */
  readonly members: readonly string[];
  readonly why: string;
}

const TIMES =
  "spec/README.md and the spec's migration note (section 9): v1 objects carry createdAt / updatedAt, renamed " +
  "createTime / updateTime in v2; the v1 message has no such fields";

/** Full message name → its REST-only members. */
export const REST_ONLY_MEMBERS: Readonly<Record<string, RestOnlyMembers>> = Object.freeze({
  "chainguard.platform.iam.Group": { members: ["createdAt", "updatedAt"], why: TIMES },
  "chainguard.platform.iam.Role": { members: ["createdAt", "updatedAt"], why: TIMES },
  "chainguard.platform.iam.IdentityProvider": { members: ["createdAt", "updatedAt"], why: TIMES },
  "chainguard.platform.iam.AccountAssociations": {
    members: ["id", "createdAt", "updatedAt"],
    why: `${TIMES}; and v1 names an object's uid \`id\` (spec section 9), where this message has only \`group\` (the same uid)`,
  },
  "chainguard.platform.registry.Repo": {
    members: ["createdAt", "updatedAt"],
    why: `${TIMES} (the message's own createTime is sent too)`,
  },
});

/**
 * The JSON of a message without its REST-only members, at any depth (a list's items, a map's values, a nested
 * message's members). Members the message lacks that are not on the list are kept, for the encoding to refuse.
 */
export function withoutRestOnly(schema: DescMessage, json: JsonValue): JsonValue {
  if (json === null || typeof json !== "object" || Array.isArray(json)) return json;
  const restOnly = Object.hasOwn(REST_ONLY_MEMBERS, schema.typeName)
    ? REST_ONLY_MEMBERS[schema.typeName]!.members
    : [];
  // Built with fromEntries: a member named `__proto__` stays a member (for the encoding to refuse), not a prototype.
  const kept = Object.entries(json).filter(([member]) => !restOnly.includes(member));
  return Object.fromEntries(kept.map(([member, value]) => [member, withinField(schema, member, value)]));
}

/** One member's value with the REST-only members of its field's message type left out. */
function withinField(schema: DescMessage, member: string, value: JsonValue): JsonValue {
  const field = schema.fields.find((f) => f.jsonName === member || f.name === member);
  const nested = field?.message;
  if (field === undefined || nested === undefined || value === null || typeof value !== "object")
    return value;
  if (field.fieldKind === "list")
    return Array.isArray(value) ? value.map((item) => withoutRestOnly(nested, item)) : value;
  if (field.fieldKind === "map" && !Array.isArray(value)) {
    const entries = Object.entries(value).map(([key, item]) => [key, withoutRestOnly(nested, item)] as const);
    return Object.fromEntries(entries) as JsonObject;
  }
  return withoutRestOnly(nested, value);
}

/**
 * Which members a create body may carry beyond the resource's writable fields: the output-only ones a client echoes,
 * each typed by the kind's OpenAPI message (a wrong JSON type is a malformed request), and nothing unknown at any
 * depth (../members.ts).
 *
 * May import: zod (types), ../errors, ../members, ../store (types), ../../sdk/schemas/openapi.generated.
 */
import type { z } from "zod";
import { badField } from "../errors";
import { refuseUnknownMembers } from "../members";
import type { Kind } from "../store";
import * as openapi from "../../sdk/schemas/openapi.generated";

/** Output-only members of every resource, ignored when a client sends them on create (AIP-203). */
export const OUTPUT_ONLY_ON_CREATE = ["uid", "createTime", "updateTime"];

/** A zod object schema, as far as the type check of ignored members needs one. */
export interface WireMessage {
  shape: Readonly<Record<string, z.ZodTypeAny>>;
}

/**
 * The OpenAPI's message of a kind, by the API's naming (`roleBindings` → RoleBinding, `identities` → Identity):
 * the type every output-only member a create ignores is checked against.
 */
export function wireMessageOf(kind: Kind): WireMessage {
  const name = kind
    .replace(/ies$/, "y")
    .replace(/s$/, "")
    .replace(/^./, (c) => c.toUpperCase());
  const message: unknown = Object.hasOwn(openapi, name) ? openapi[name as keyof typeof openapi] : undefined;
  if (typeof message !== "object" || message === null || !("shape" in message))
    throw new Error(`no OpenAPI message ${name} for the kind ${kind}`);
  return message as WireMessage;
}

/**
 * A create body member that is neither a field of the resource nor an output-only one, at any depth, is code 3
 * naming its path (../members.ts): the emulator stores everything it accepts, so it refuses what it cannot store
 * rather than drop it. An output-only member (uid, times, `ignored`) that `wire` types is ignored only when it has
 * its type (else code 3 naming it).
 */
export function refuseUnknownFields(
  body: unknown,
  schema: z.ZodTypeAny,
  label: string,
  ignored: readonly string[] = [],
  wire?: WireMessage,
): void {
  // uid and the times are the message's own when it has them (a role binding has no updateTime: an unknown member).
  const outputOnly = [
    ...OUTPUT_ONLY_ON_CREATE.filter((member) => wire === undefined || Object.hasOwn(wire.shape, member)),
    ...ignored,
  ];
  refuseUnknownMembers(body, schema, label, outputOnly);
  if (wire === undefined || typeof body !== "object" || body === null || Array.isArray(body)) return;
  for (const member of outputOnly) {
    const value = Object.hasOwn(body, member) ? (body as Record<string, unknown>)[member] : undefined;
    const type = Object.hasOwn(wire.shape, member) ? wire.shape[member] : undefined;
    // null is any member's default in protobuf JSON, so it is no wrong type.
    const parsed =
      type === undefined || value === undefined || value === null ? undefined : type.safeParse(value);
    if (parsed === undefined || parsed.success) continue;
    throw badField(
      member,
      `${member} is output-only, but must be of its type: ${parsed.error.issues[0]?.message}`,
    );
  }
}

/**
 * Which members a create or update body may carry beyond the resource's writable fields: the output-only ones, read
 * from the OpenAPI (its readOnly members), which a client may echo and the service ignores (AIP-203), each typed by
 * the kind's OpenAPI message (a wrong JSON type is a malformed request); and nothing unknown at any depth
 * (../members.ts).
 */
import type { z } from "zod";
import { badField } from "../errors";
import { refuseUnknownMembers } from "../members";
import type { Kind } from "../store";
import * as openapi from "../../sdk/schemas/openapi.generated";

/** A zod object schema, as far as the type check of output-only members needs one. */
export interface WireMessage {
  shape: Readonly<Record<string, z.ZodTypeAny>>;
}

/** The OpenAPI message's name of a kind, by the API's naming (`roleBindings` → RoleBinding, `identities` → Identity). */
function messageName(kind: Kind): string {
  return kind
    .replace(/ies$/, "y")
    .replace(/s$/, "")
    .replace(/^./, (c) => c.toUpperCase());
}

/** The OpenAPI's message of a kind: the type every output-only member a body carries is checked against. */
export function wireMessageOf(kind: Kind): WireMessage {
  const name = messageName(kind);
  const message: unknown = Object.hasOwn(openapi, name) ? openapi[name as keyof typeof openapi] : undefined;
  if (typeof message !== "object" || message === null || !("shape" in message))
    throw new Error(`no OpenAPI message ${name} for the kind ${kind}`);
  return message as WireMessage;
}

/**
 * The members of a kind's message that the OpenAPI marks `readOnly`: every member but its `<Message>Writable` ones
 * (the generator writes that list only for a message with a readOnly member, so without it there is none).
 */
export function outputOnlyOf(kind: Kind): readonly string[] {
  const name = `${messageName(kind)}Writable`;
  const writable: unknown = Object.hasOwn(openapi, name) ? openapi[name as keyof typeof openapi] : undefined;
  if (writable === undefined) return [];
  if (!Array.isArray(writable)) throw new Error(`${name} is no list of members`);
  return Object.keys(wireMessageOf(kind).shape).filter((member) => !writable.includes(member));
}

/**
 * What a create or update body may carry, one way for both: the body schema's members, and the output-only ones
 * (`outputOnly`: the OpenAPI's readOnly members, and those a spec rule keeps from clients), which AIP-203 has the
 * service ignore, never refuse. A member that is neither, at any depth, is code 3 naming its path (../members.ts):
 * the emulator stores everything it accepts, so it refuses what it cannot store rather than drop it. An output-only
 * member is still read by the service's parser, so one that `wire` types must have its type (else code 3 naming it).
 */
export function refuseUnknownFields(
  body: unknown,
  schema: z.ZodTypeAny,
  label: string,
  outputOnly: readonly string[],
  wire?: WireMessage,
): void {
  refuseUnknownMembers(body, schema, label, outputOnly);
  if (wire !== undefined)
    refuseMistypedMembers(body, wire, outputOnly, (member) => `${member} is output-only`);
}

/**
 * Each of `members` the body carries has its type in the kind's message, as the service's parser reads every member
 * of a body whatever the update mask says (grpc-gateway unmarshals the whole body first): a wrong JSON type is code 3
 * naming it. `said` words the member in the error ("name is outside the update mask").
 */
export function refuseMistypedMembers(
  body: unknown,
  wire: WireMessage,
  members: readonly string[],
  said: (member: string) => string,
): void {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return;
  for (const member of members) {
    const value = Object.hasOwn(body, member) ? (body as Record<string, unknown>)[member] : undefined;
    const type = Object.hasOwn(wire.shape, member) ? wire.shape[member] : undefined;
    // null is any member's default in protobuf JSON, so it is no wrong type.
    const parsed =
      type === undefined || value === undefined || value === null ? undefined : type.safeParse(value);
    if (parsed === undefined || parsed.success) continue;
    throw badField(member, `${said(member)}, but must be of its type: ${parsed.error.issues[0]?.message}`);
  }
}

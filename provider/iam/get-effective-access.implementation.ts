/**
 * platform.iam.getEffectiveAccess, implementation (loaded by ./get-effective-access on the first call): who can do
 * what on one group, and why. With `identity`: every capability that identity holds on the group, each with the
 * bindings that grant it; with `capability`: every identity holding it there, with the same "why". The answer is
 * the shared access model's (../../sdk/access-model.ts), the one the emulator enforces, over live data.
 *
 * The reads are bounded by the group's depth, not the organization's size: the bindings that apply on a group are
 * those on it and on its ancestors, so one filtered list per ancestor (`group=`, and `identity=` when asked about
 * one identity), then one list of the roles those bindings name (`uidp.ids`, built-in ones included).
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { declareDataSource } from "../core/declaration";
import { Uidp } from "../../sdk/schemas";
import { CAPABILITY_SET } from "../../sdk/schemas/capabilities";
import {
  AccessModel,
  ancestorsOrSelf,
  grantsOn,
  type BindingFacts,
  type RoleFacts,
} from "../../sdk/access-model";
import type { PlatformClient } from "../../sdk";
import {
  DATA_SOURCE_PAGE_SIZE,
  ProfileArgsSchema,
  argumentError,
  collect,
  parseArgs,
  withProgramClient,
} from "../core/program-client";
import type { GetEffectiveAccessArgs, GetEffectiveAccessResult } from "../types.generated";

/** @internal */
export const GetEffectiveAccessArgsSchema = z
  .object({
    group: Uidp.describe("The group asked about (its uid)."),
    identity: Uidp.optional().describe(
      "An identity's uid: the result lists every capability it holds on the group (`capabilities`).",
    ),
    capability: z
      .string()
      .refine((c) => CAPABILITY_SET.has(c), {
        message: "is not a known capability (e.g. CAP_IAM_GROUPS_CREATE)",
      })
      .optional()
      .describe(
        "A capability, e.g. CAP_IAM_ROLE_BINDINGS_CREATE: the result lists every identity holding it on the group (`holders`).",
      ),
    ...ProfileArgsSchema.shape,
  })
  .refine((a) => (a.identity === undefined) !== (a.capability === undefined), {
    message: "pass exactly one of identity and capability",
    path: ["identity"],
  });

/** @internal */
export const AccessGrantSchema = z.object({
  bindingUid: z.string().describe("The role binding that grants it."),
  roleUid: z.string().describe("The binding's role."),
  roleName: z.string().optional().describe("The role's name, when readable."),
  group: z.string().describe("The group the binding is on: the group asked about, or one of its ancestors."),
  inherited: z
    .boolean()
    .describe("True when the binding is on an ancestor of the group asked about (access flows down)."),
});

/** @internal */
export const GetEffectiveAccessResultSchema = z.object({
  group: z.string().describe("The group asked about."),
  identity: z.string().optional().describe("The identity asked about, when `identity` was passed."),
  capability: z.string().optional().describe("The capability asked about, when `capability` was passed."),
  capabilities: z
    .array(
      z.object({
        capability: z.string().describe("A capability the identity holds on the group."),
        grants: z.array(AccessGrantSchema).describe("The bindings that grant it, nearest group first."),
      }),
    )
    .optional()
    .describe("With `identity`: each capability it holds on the group, sorted, with why."),
  holders: z
    .array(
      z.object({
        identityUid: z.string().describe("An identity holding the capability on the group."),
        identityName: z.string().optional().describe("Its name, when the binding's answer carries it."),
        grants: z.array(AccessGrantSchema).describe("The bindings that grant it, nearest group first."),
      }),
    )
    .optional()
    .describe("With `capability`: each identity holding it on the group, sorted by uid, with why."),
});

/** platform:iam:getEffectiveAccess, declared once: the catalogue (../catalogue) lists it, schema.json and the docs derive from it. */
export const declaration = declareDataSource({
  token: "platform:iam:getEffectiveAccess",
  summary:
    "Who can do what on a group, and why: an identity's capabilities there, or the identities holding a capability there, each with the bindings that grant it.",
  args: GetEffectiveAccessArgsSchema,
  result: GetEffectiveAccessResultSchema,
  invoke: (args) => getEffectiveAccess(args as GetEffectiveAccessArgs),
});

const TOKEN = declaration.token;

type Grant = z.infer<typeof AccessGrantSchema>;

export async function getEffectiveAccess(
  args: GetEffectiveAccessArgs,
  _opts?: pulumi.InvokeOptions,
): Promise<GetEffectiveAccessResult> {
  const { group, identity, capability, profile } = parseArgs(TOKEN, GetEffectiveAccessArgsSchema, args);
  return withProgramClient(profile, { action: "read access", type: TOKEN, uid: group }, async (client) => {
    const { model, names } = await readFacts(client, group, identity);
    const why = (through: readonly BindingFacts[]): Grant[] =>
      [...through]
        .sort((a, b) => b.group.length - a.group.length || (a.uid < b.uid ? -1 : 1))
        .map((b) => ({
          bindingUid: b.uid,
          roleUid: b.role,
          ...(model.role(b.role)?.name !== undefined ? { roleName: model.role(b.role)!.name! } : {}),
          group: b.group,
          inherited: b.group !== group,
        }));
    if (identity !== undefined) {
      const grants = grantsOn(model, identity, group);
      return {
        group,
        identity,
        capabilities: [...grants.keys()].sort().map((c) => ({ capability: c, grants: why(grants.get(c)!) })),
      };
    }
    const holders = model.holders(capability!, group);
    return {
      group,
      capability: capability!,
      holders: [...holders.keys()].sort().map((uid) => ({
        identityUid: uid,
        ...(names.get(uid) !== undefined ? { identityName: names.get(uid)! } : {}),
        grants: why(holders.get(uid)!),
      })),
    };
  });
}

/** The bindings that apply on `group` (of `identity` alone when given) and the roles they name, from the API. */
async function readFacts(
  client: PlatformClient,
  group: string,
  identity: string | undefined,
): Promise<{ model: AccessModel; names: Map<string, string> }> {
  const bindings: BindingFacts[] = [];
  const names = new Map<string, string>();
  for (const at of ancestorsOrSelf(group)) {
    const listed = await collect(
      client.roleBindings.list({
        group: at,
        ...(identity !== undefined ? { identity } : {}),
        pageSize: DATA_SOURCE_PAGE_SIZE,
      }),
    );
    for (const b of listed) {
      const identityUid = b.identity?.uid;
      const roleUid = b.role?.uid;
      if (identityUid === undefined || roleUid === undefined) continue;
      bindings.push({ uid: b.uid, group: b.group?.uid ?? at, identity: identityUid, role: roleUid });
      if (b.identity?.name !== undefined && b.identity.name !== "") names.set(identityUid, b.identity.name);
    }
  }
  const roleUids = [...new Set(bindings.map((b) => b.role))].sort();
  const roles: RoleFacts[] = [];
  for (let i = 0; i < roleUids.length; i += DATA_SOURCE_PAGE_SIZE) {
    const ids = roleUids.slice(i, i + DATA_SOURCE_PAGE_SIZE);
    const listed = await collect(client.roles.list({ ids, pageSize: DATA_SOURCE_PAGE_SIZE }));
    for (const r of listed) roles.push({ uid: r.uid, name: r.name, capabilities: r.capabilities ?? [] });
  }
  // A role the credentials cannot read would silently count as granting nothing: say so instead.
  const unreadable = roleUids.filter((uid) => !roles.some((r) => r.uid === uid));
  if (unreadable.length > 0) {
    throw argumentError(
      TOKEN,
      `the bindings on ${group} and above name roles these credentials cannot read (${unreadable.join(", ")}): ` +
        "their capabilities are unknown; use credentials that hold CAP_IAM_ROLES_LIST where those roles are defined",
    );
  }
  return { model: new AccessModel({ roles, bindings }), names };
}

/**
 * platform.iam.getRole, implementation (loaded by ./get-role on the first call): one role by uid, or by name. Names cover built-in roles (e.g.
 * `viewer`, 40-hex uid) and custom ones; `parentUid` narrows a name search to the custom roles below that
 * group, falling back to a built-in role of that name.
 *
 * May import: @pulumi/pulumi, zod, ../core/program-client, ../../sdk.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { declareDataSource } from "../core/declaration";
import { BUILTIN_ROLE_UID_PATTERN, Role, RoleUid, Uidp } from "../../sdk/schemas";
import type { PlatformClient } from "../../sdk";
import {
  DATA_SOURCE_PAGE_SIZE,
  ProfileArgsSchema,
  collect,
  parseArgs,
  theOnlyMatch,
  withProgramClient,
} from "../core/program-client";
import type { GetRoleArgs, GetRoleResult } from "../types";

/** @internal */
export const GetRoleArgsSchema = z
  .object({
    uid: RoleUid.optional().describe("The role's uid: a uidp, or a built-in role's 40-hex uid."),
    name: z.string().min(1).optional().describe('The role\'s exact name, e.g. "viewer".'),
    parentUid: Uidp.optional().describe("With name: search the custom roles below this group first."),
    ...ProfileArgsSchema.shape,
  })
  .refine((a) => a.uid !== undefined || a.name !== undefined, { message: "pass uid or name", path: ["uid"] });

/** @internal */
export const GetRoleResultSchema = Role.extend({
  builtIn: z.boolean().describe("True for a built-in role (40-hex uid), false for a custom role."),
});

/** platform:iam:getRole, declared once: the catalogue (../catalogue) lists it, schema.json and the docs derive from it. */
export const declaration = declareDataSource({
  token: "platform:iam:getRole",
  summary: "One role by uid, or by name (built-in roles such as viewer, or custom roles below parentUid).",
  args: GetRoleArgsSchema,
  result: GetRoleResultSchema,
  invoke: (args) => getRole(args as GetRoleArgs),
});

const TOKEN = declaration.token;

async function findByName(
  client: PlatformClient,
  name: string,
  parentUid: string | undefined,
): Promise<Role[]> {
  const query = { name, pageSize: DATA_SOURCE_PAGE_SIZE };
  if (parentUid !== undefined) {
    const scoped = (await collect(client.roles.list({ ...query, descendantsOf: parentUid }))).filter(
      (r) => r.name === name,
    );
    if (scoped.length > 0) return scoped;
    // Built-in roles live under no group: fall back to one of that name.
    const all = await collect(client.roles.list(query));
    return all.filter((r) => r.name === name && BUILTIN_ROLE_UID_PATTERN.test(r.uid));
  }
  return (await collect(client.roles.list(query))).filter((r) => r.name === name);
}

export async function getRole(args: GetRoleArgs, _opts?: pulumi.InvokeOptions): Promise<GetRoleResult> {
  const { uid, name, parentUid, profile } = parseArgs(TOKEN, GetRoleArgsSchema, args);
  return withProgramClient(profile, { action: "look up", type: TOKEN, name, uid }, async (client) => {
    let role: Role;
    if (uid !== undefined) {
      role = await client.roles.get(uid);
    } else {
      role = theOnlyMatch(TOKEN, await findByName(client, name as string, parentUid), {
        kind: "role",
        kinds: "roles",
        name,
        where: "visible to these credentials",
        hint: "pass uid or parentUid",
      });
    }
    return { ...role, builtIn: BUILTIN_ROLE_UID_PATTERN.test(role.uid) };
  });
}

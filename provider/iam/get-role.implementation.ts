/**
 * platform.iam.getRole, implementation (loaded by ./get-role on the first call): one role by uid, or by name. Names cover built-in roles (e.g.
 * `viewer`, 40-hex uid) and custom ones; `parentUid` narrows a name search to the custom roles below that
 * group, falling back to a built-in role of that name.
 */
import { z } from "zod";
import { BUILTIN_ROLE_UID_PATTERN, Role, RoleUid, Uidp } from "../../sdk/schemas";
import type { PlatformClient } from "../../sdk";
import { ProfileArgsSchema, lookupDataSource, named, type DataSourceFunction } from "../core/data-source";
import type { GetRoleArgs, GetRoleResult } from "../types.generated";

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

/** The roles named `name`: the custom ones below `parentUid` if any, else a built-in one; without it, any. */
async function rolesNamed(
  client: PlatformClient,
  name: string,
  parentUid: string | undefined,
  page: { pageSize: number },
): Promise<Role[]> {
  const query = { name, ...page };
  if (parentUid !== undefined) {
    const scoped = await named(name, client.roles.list({ ...query, descendantsOf: parentUid }));
    if (scoped.length > 0) return scoped;
    // Built-in roles live under no group: fall back to one of that name.
    const all = await named(name, client.roles.list(query));
    return all.filter((r) => BUILTIN_ROLE_UID_PATTERN.test(r.uid));
  }
  return named(name, client.roles.list(query));
}

const role = lookupDataSource({
  token: "platform:iam:getRole",
  summary: "One role by uid, or by name (built-in roles such as viewer, or custom roles below parentUid).",
  args: GetRoleArgsSchema,
  result: GetRoleResultSchema,
  kind: "role",
  kinds: "roles",
  get: (client, uid) => client.roles.get(uid),
  find: async (client, { name, parentUid }, page) => ({
    matches: await rolesNamed(client, name!, parentUid, page),
    where: "visible to these credentials",
    hint: "pass uid or parentUid",
  }),
  answer: (found) => ({ ...found, builtIn: BUILTIN_ROLE_UID_PATTERN.test(found.uid) }),
});

/** platform:iam:getRole, declared once: the catalogue (../catalogue) lists it, schema.json and the docs derive from it. */
export const declaration = role.declaration;

export const getRole: DataSourceFunction<GetRoleArgs, GetRoleResult> = role.run;

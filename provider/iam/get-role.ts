/**
 * platform.iam.getRole / getRoleOutput: one role by uid, or by name. Names cover built-in roles (e.g.
 * `viewer`, 40-hex uid) and custom ones; `parentUid` narrows a name search to one organization's custom
 * roles, falling back to built-in roles of that name.
 *
 * May import: @pulumi/pulumi, ../core/program-client, ../../sdk.
 */
import * as pulumi from "@pulumi/pulumi";
import { BUILTIN_ROLE_UID_PATTERN, type PlatformClient, type Role } from "../../sdk";
import {
  DATA_SOURCE_PAGE_SIZE,
  ProfileArgs,
  argumentError,
  collect,
  outputForm,
  withProgramClient,
} from "../core/program-client";

export interface GetRoleArgs extends ProfileArgs {
  /** The role's uid (a uidp, or a built-in role's 40-hex uid). */
  uid?: string;
  /** The role's exact name, e.g. "viewer". */
  name?: string;
  /** With `name`: search custom roles below this group first (uidp.descendants_of). */
  parentUid?: string;
}

export type GetRoleResult = Role & { builtIn: boolean };

async function findByName(client: PlatformClient, name: string, parentUid: string | undefined): Promise<Role[]> {
  const query = { name, pageSize: DATA_SOURCE_PAGE_SIZE };
  if (parentUid !== undefined) {
    const scoped = await collect(client.roles.list({ ...query, descendantsOf: parentUid }));
    if (scoped.length > 0) return scoped.filter((r) => r.name === name);
    // Built-in roles live under no group: look for one of that name.
    return (await collect(client.roles.list(query))).filter((r) => r.name === name && BUILTIN_ROLE_UID_PATTERN.test(r.uid));
  }
  return (await collect(client.roles.list(query))).filter((r) => r.name === name);
}

export function getRole(args: GetRoleArgs, _opts?: pulumi.InvokeOptions): Promise<GetRoleResult> {
  if (args.uid === undefined && args.name === undefined) {
    return Promise.reject(argumentError("platform:iam:getRole", "pass `uid` or `name`"));
  }
  const attempt = { action: "look up", type: "platform:iam:getRole", name: args.name, uid: args.uid };
  return withProgramClient(args.profile, attempt, async (client) => {
    let role: Role;
    if (args.uid !== undefined) {
      role = await client.roles.get(args.uid);
    } else {
      const matches = await findByName(client, args.name as string, args.parentUid);
      const [first, ...rest] = matches;
      if (first === undefined) {
        throw argumentError("platform:iam:getRole", `no role named "${args.name}" is visible to these credentials`);
      }
      if (rest.length > 0) {
        throw argumentError(
          "platform:iam:getRole",
          `${matches.length} roles are named "${args.name}" (${matches.map((r) => r.uid).join(", ")}): pass \`uid\` or \`parentUid\``,
        );
      }
      role = first;
    }
    return { ...role, builtIn: BUILTIN_ROLE_UID_PATTERN.test(role.uid) };
  });
}

export const getRoleOutput = outputForm(getRole);

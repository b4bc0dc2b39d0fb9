/**
 * platform.iam.getRoles, implementation (loaded by ./get-roles on the first call): every role visible to the credentials (built-in and custom),
 * optionally scoped and filtered, paged through 200 at a time.
 *
 * May import: @pulumi/pulumi, zod, ../core/program-client, ../../sdk.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { declareDataSource } from "../core/declaration";
import { Role, Uidp } from "../../sdk/schemas";
import {
  DATA_SOURCE_PAGE_SIZE,
  ProfileArgsSchema,
  collect,
  parseArgs,
  withProgramClient,
} from "../core/program-client";
import type { GetRolesArgs, GetRolesResult } from "../types";

/** @internal */
export const GetRolesArgsSchema = z.object({
  descendantsOf: Uidp.optional().describe("Only roles anywhere below this group (uidp.descendants_of)."),
  childrenOf: Uidp.optional().describe("Only roles defined directly in this group (uidp.children_of)."),
  name: z.string().optional().describe("Only roles with exactly this name."),
  uids: z
    .array(z.string().min(1))
    .optional()
    .describe(
      "Only the roles with these uids (uidp.ids): many roles in one request rather than a getRole each.",
    ),
  orderBy: z.string().optional().describe('Server-side order, e.g. "name" or "created_at desc".'),
  ...ProfileArgsSchema.shape,
});

/** @internal */
export const GetRolesResultSchema = z.object({ roles: z.array(Role).describe("Every matching role.") });

/** platform:iam:getRoles, declared once: the catalogue (../catalogue) lists it, schema.json and the docs derive from it. */
export const declaration = declareDataSource({
  token: "platform:iam:getRoles",
  summary: "Every role visible to the credentials, built-in and custom, optionally scoped and filtered.",
  args: GetRolesArgsSchema,
  result: GetRolesResultSchema,
  invoke: (args) => getRoles(args as GetRolesArgs),
});

const TOKEN = declaration.token;

export async function getRoles(
  args: GetRolesArgs = {},
  _opts?: pulumi.InvokeOptions,
): Promise<GetRolesResult> {
  const { profile, uids, ...filters } = parseArgs(TOKEN, GetRolesArgsSchema, args);
  // An empty uids list asks for no role: no request.
  if (uids !== undefined && uids.length === 0) return { roles: [] };
  return withProgramClient(profile, { action: "list", type: TOKEN }, async (client) => ({
    roles: await collect(client.roles.list({ ...filters, ids: uids, pageSize: DATA_SOURCE_PAGE_SIZE })),
  }));
}

/**
 * platform.iam.getRoles, implementation (loaded by ./get-roles on the first call): every role visible to the credentials (built-in and custom),
 * optionally scoped and filtered, paged through 200 at a time.
 */
import { z } from "zod";
import { Role, Uidp } from "../../sdk/schemas";
import { ProfileArgsSchema, listDataSource, type DataSourceFunction } from "../core/data-source";
import type { GetRolesArgs, GetRolesResult } from "../types.generated";

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

const roles = listDataSource({
  token: "platform:iam:getRoles",
  summary: "Every role visible to the credentials, built-in and custom, optionally scoped and filtered.",
  args: GetRolesArgsSchema,
  key: "roles",
  item: Role,
  doc: "Every matching role.",
  list: (client, { uids, ...filters }, page) => client.roles.list({ ...filters, ids: uids, ...page }),
});

/** @internal */
export const GetRolesResultSchema = roles.result;

/** platform:iam:getRoles, declared once: the catalogue (../catalogue) lists it, schema.json and the docs derive from it. */
export const declaration = roles.declaration;

export const getRoles: DataSourceFunction<GetRolesArgs | undefined, GetRolesResult> = roles.run;

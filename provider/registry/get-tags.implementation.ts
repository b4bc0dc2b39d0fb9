/**
 * platform.registry.getTags, implementation (loaded by ./get-tags on the first call): the tags of one registry repository, with an optional
 * exact-name filter and server-side ordering, paged through 200 at a time.
 */
import { z } from "zod";
import { Tag, Uidp } from "../../sdk/schemas";
import { ProfileArgsSchema, listDataSource, type DataSourceFunction } from "../core/data-source";
import type { GetTagsArgs, GetTagsResult } from "../types.generated";

/** @internal */
export const GetTagsArgsSchema = z.object({
  repoUid: Uidp.describe("The repository whose tags to list (see getRepo)."),
  name: z.string().optional().describe("Only the tag with exactly this name."),
  updatedSince: z.iso
    .datetime({
      offset: true,
      error: "updatedSince must be an RFC 3339 timestamp, e.g. 2025-01-31T12:00:00Z",
    })
    .optional()
    .describe(
      "Only tags updated after this RFC 3339 time: a program that syncs tags reads only the changes.",
    ),
  includeReferrers: z
    .boolean()
    .optional()
    .describe('Also list "sha256-*" tags (signatures, attestations); default false.'),
  includeDates: z.boolean().optional().describe('Also list dated "*-20yymmdd" tags; default false.'),
  includeEpochs: z.boolean().optional().describe('Also list "*-r<n>" epoch tags; default false.'),
  orderBy: z.string().optional().describe('Server-side order, e.g. "name", "name desc", "update_time desc".'),
  ...ProfileArgsSchema.shape,
});

const tags = listDataSource({
  token: "platform:registry:getTags",
  summary: "The tags of one registry repository, with an optional name filter and ordering.",
  args: GetTagsArgsSchema,
  key: "tags",
  item: Tag,
  doc: "Every matching tag.",
  list: (client, { repoUid, ...filters }, page) => client.tags.list({ ...filters, repo: repoUid, ...page }),
});

/** @internal */
export const GetTagsResultSchema = tags.result;

/** platform:registry:getTags, declared once: the catalogue (../catalogue) lists it, schema.json and the docs derive from it. */
export const declaration = tags.declaration;

export const getTags: DataSourceFunction<GetTagsArgs, GetTagsResult> = tags.run;

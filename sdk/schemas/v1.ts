/** v1 lists still offered: results under `items`, `id` for uid, createdAt/updatedAt; update resets omitted fields. */
import { z } from "zod";

/** What every v1 object carries: `id` for uid, a name, a description, createdAt/updatedAt. */
const V1Object = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});

export const V1Group = V1Object.extend({
  resourceLimits: z
    .object({
      clusters: z.number().int().optional(),
      idps: z.number().int().optional(),
      repositories: z.number().int().optional(),
    })
    .optional(),
  verified: z.boolean().optional(),
});
export type V1Group = z.infer<typeof V1Group>;

/** v1 repo: also the published message's `createTime` (registry v1 Repo), besides the spec's createdAt. */
export const V1Repo = V1Object.extend({ createTime: z.string().optional() });
export type V1Repo = z.infer<typeof V1Repo>;

/**
 * v1 identity (GET /iam/v1/identities/lookup): `id` for uid, createdAt/updatedAt, and `lastSeen` (the published
 * v1 Identity message's name for v2's lastSeenTime).
 */
export const V1Identity = V1Object.extend({
  name: z.string().optional(),
  claimMatch: z.record(z.string(), z.unknown()).optional(),
  lastSeen: z.string().optional(),
});
export type V1Identity = z.infer<typeof V1Identity>;

export const V1GroupList = z.object({ items: z.array(V1Group).default([]) });
export const V1RepoList = z.object({ items: z.array(V1Repo).default([]) });

/** Registry tags: a uid under a repo. Read-only here. OpenAPI platform.registry.v2beta1.Tag. */
import { z } from "zod";
import { Timestamp, listEnvelope } from "./common";

export const Tag = z.object({
  uid: z.string(),
  name: z.string(),
  digest: z.string(),
  deprecated: z.boolean().optional(),
  bundles: z.array(z.string()).optional(),
  updateTime: Timestamp.optional(),
});
export type Tag = z.infer<typeof Tag>;

export const TagList = listEnvelope("tags", Tag);

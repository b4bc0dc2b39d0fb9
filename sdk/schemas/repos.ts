/** Registry repositories (read-only through v2beta1). OpenAPI platform.registry.v2beta1.Repo. */
import { z } from "zod";
import { Timestamp, listEnvelope } from "./common";

export const Repo = z.object({
  uid: z.string(),
  name: z.string(),
  description: z.string().optional(),
  aliases: z.array(z.string()).optional(),
  bundles: z.array(z.string()).optional(),
  activeTags: z.array(z.string()).optional(),
  catalogTier: z.string().optional(),
  createTime: Timestamp.optional(),
  updateTime: Timestamp.optional(),
});
export type Repo = z.infer<typeof Repo>;

export const RepoList = listEnvelope("repos", Repo);

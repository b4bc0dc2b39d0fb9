/**
 * Registry repositories (read-only through v2beta1): OpenAPI platform.registry.v2beta1.Repo (./openapi.generated).
 * `customOverlay` and `sync_config` (image customization and mirroring) are not modelled by this kit.
 */
import type { z } from "zod";
import { listEnvelope } from "./common";
import * as wire from "./openapi.generated";

export const Repo = wire.Repo.omit({ customOverlay: true, sync_config: true }).required({
  uid: true,
  name: true,
});
export type Repo = z.infer<typeof Repo>;

export const RepoList = listEnvelope("repos", Repo);

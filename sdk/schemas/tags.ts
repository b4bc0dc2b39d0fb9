/** Registry tags: a uid under a repo. Read-only here. OpenAPI platform.registry.v2beta1.Tag (./openapi.generated). */
import type { z } from "zod";
import { listEnvelope } from "./common";
import * as wire from "./openapi.generated";

export const Tag = wire.Tag.required({ uid: true, name: true, digest: true });
export type Tag = z.infer<typeof Tag>;

export const TagList = listEnvelope("tags", Tag);

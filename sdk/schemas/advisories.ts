/** Vulnerability advisories (read-only). OpenAPI platform.vulnerabilities.v2beta1.Advisory. */
import { z } from "zod";
import { Timestamp, listEnvelope } from "./common";

export const Severity = z.object({ type: z.string().optional(), score: z.string().optional() });

export const AdvisoryEvent = z.looseObject({
  author: z.string().optional(),
  reviewState: z.string().optional(),
  createTime: Timestamp.optional(),
});

export const Advisory = z.object({
  uid: z.string(),
  advisoryId: z.string().optional(),
  legacyAdvisoryId: z.string().optional(),
  aliases: z.array(z.string()).optional(),
  author: z.string().optional(),
  artifactName: z.string().optional(),
  artifactType: z.string().optional(),
  artifactArchitecture: z.string().optional(),
  componentName: z.string().optional(),
  componentType: z.string().optional(),
  componentLocation: z.string().optional(),
  severities: z.array(Severity).optional(),
  events: z.array(AdvisoryEvent).optional(),
  createTime: Timestamp.optional(),
  updateTime: Timestamp.optional(),
  deleteTime: Timestamp.optional(),
});
export type Advisory = z.infer<typeof Advisory>;

export const AdvisoryList = listEnvelope("advisories", Advisory);

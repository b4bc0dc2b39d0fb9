/**
 * Vulnerability advisories (read-only): OpenAPI platform.vulnerabilities.v2beta1.Advisory (./openapi.generated).
 * Of each event this kit reads who, when and the review state; the event's payload (fixed, patched...) is kept as
 * the service sent it.
 */
import { z } from "zod";
import { listEnvelope } from "./common";
import { describedAs } from "./derive";
import * as wire from "./openapi.generated";

export const Severity = wire.Severity;

export const AdvisoryEvent = z.looseObject(
  wire.AdvisoryEvent.pick({ author: true, reviewState: true, createTime: true }).shape,
);

export const Advisory = wire.Advisory.required({ uid: true }).extend({
  events: describedAs(z.array(AdvisoryEvent), wire.Advisory, "events").optional(),
});
export type Advisory = z.infer<typeof Advisory>;

export const AdvisoryList = listEnvelope("advisories", Advisory);

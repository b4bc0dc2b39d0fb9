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

/** Is this member of a message itself a message (under optional)? */
const isMessage = (schema: z.ZodType): boolean =>
  (schema instanceof z.ZodOptional ? schema.unwrap() : schema) instanceof z.ZodObject;

/** The zero value of ListAdvisories' event type filters: no filter. */
export const EVENT_TYPE_FILTER_UNSPECIFIED = "EVENT_TYPE_FILTER_UNSPECIFIED";

/**
 * The event type filters of ListAdvisories (`eventTypes`, `latestEventType`: EVENT_TYPE_FILTER_*) and the
 * AdvisoryEvent member each selects: an event's type is the message member it carries, and each filter is named
 * after one (`truePositiveDetermination` → EVENT_TYPE_FILTER_TRUE_POSITIVE_DETERMINATION). Read from the OpenAPI's
 * AdvisoryEvent, the one place; test/fuzz/openapi.fuzz.test.ts checks the names are the OpenAPI's enum values.
 */
export const EVENT_TYPE_MEMBERS: ReadonlyMap<string, string> = new Map(
  Object.entries(wire.AdvisoryEvent.shape)
    .filter(([, schema]) => isMessage(schema as z.ZodType))
    .map(([member]) => [
      `EVENT_TYPE_FILTER_${member.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`,
      member,
    ]),
);

export const Advisory = wire.Advisory.required({ uid: true }).extend({
  events: describedAs(z.array(AdvisoryEvent), wire.Advisory, "events").optional(),
});
export type Advisory = z.infer<typeof Advisory>;

export const AdvisoryList = listEnvelope("advisories", Advisory);

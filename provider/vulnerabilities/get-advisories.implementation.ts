/**
 * platform.vulnerabilities.getAdvisories, implementation (loaded by ./get-advisories on the first call): vulnerability advisories with the filters
 * the API offers (OpenAPI ListAdvisories), paged through 200 at a time.
 */
import { z } from "zod";
import { Advisory, Uidp } from "../../sdk/schemas";
import { ProfileArgsSchema, listDataSource, type DataSourceFunction } from "../core/data-source";
import type { GetAdvisoriesArgs, GetAdvisoriesResult } from "../types.generated";

const anyOf = (what: string) => z.array(z.string()).optional().describe(`Match any of these ${what}.`);

/** @internal */
export const GetAdvisoriesArgsSchema = z.object({
  descendantsOf: Uidp.optional().describe("Only advisories below this group (uidp.descendants_of)."),
  childrenOf: Uidp.optional().describe("Only advisories directly in this group (uidp.children_of)."),
  advisoryIds: anyOf("advisory ids"),
  legacyAdvisoryIds: anyOf("legacy advisory ids"),
  aliases: anyOf("vulnerability aliases (CVE-..., GHSA-...)"),
  artifactNames: anyOf("exact artifact names"),
  artifactTypes: anyOf("artifact types"),
  artifactArchitectures: anyOf("architectures (x86_64, aarch64)"),
  componentNames: anyOf("exact component names"),
  componentTypes: anyOf("component types"),
  componentLocations: anyOf("component locations"),
  origin: z.string().optional().describe("An origin package: advisories of it and its subpackages."),
  eventReviewStates: anyOf("event review states (REVIEW_STATE_PENDING, ...)"),
  eventAuthors: anyOf("event authors"),
  excludeEventAuthors: anyOf("event authors to exclude"),
  eventReviewers: anyOf("event reviewers"),
  eventTypes: anyOf("event types (EVENT_TYPE_FILTER_FIXED, ...)"),
  latestEventType: z.string().optional().describe("The type of the latest approved event."),
  query: z.string().optional().describe("Free-text search."),
  orderBy: z.string().optional().describe('Server-side order, e.g. "created_at desc".'),
  ...ProfileArgsSchema.shape,
});

const advisories = listDataSource({
  token: "platform:vulnerabilities:getAdvisories",
  summary: "Vulnerability advisories matching the API's filters.",
  args: GetAdvisoriesArgsSchema,
  key: "advisories",
  item: Advisory,
  doc: "Every matching advisory.",
  list: (client, filters, page) => client.advisories.list({ ...filters, ...page }),
});

/** @internal */
export const GetAdvisoriesResultSchema = advisories.result;

/** platform:vulnerabilities:getAdvisories, declared once: the catalogue (../catalogue) lists it, schema.json and the docs derive from it. */
export const declaration = advisories.declaration;

export const getAdvisories: DataSourceFunction<GetAdvisoriesArgs | undefined, GetAdvisoriesResult> =
  advisories.run;

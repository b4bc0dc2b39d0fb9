/**
 * platform.vulnerabilities.getAdvisories, implementation (loaded by ./get-advisories on the first call): vulnerability advisories with the filters
 * the API offers (OpenAPI ListAdvisories), paged through 200 at a time.
 *
 * May import: @pulumi/pulumi, zod, ../core/program-client, ../../sdk.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { declareDataSource } from "../core/declaration";
import { Advisory, Uidp } from "../../sdk/schemas";
import {
  DATA_SOURCE_PAGE_SIZE,
  ProfileArgsSchema,
  collect,
  parseArgs,
  withProgramClient,
} from "../core/program-client";
import type { GetAdvisoriesArgs, GetAdvisoriesResult } from "../types";

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

/** @internal */
export const GetAdvisoriesResultSchema = z.object({
  advisories: z.array(Advisory).describe("Every matching advisory."),
});

/** platform:vulnerabilities:getAdvisories, declared once: the catalogue (../catalogue) lists it, schema.json and the docs derive from it. */
export const declaration = declareDataSource({
  token: "platform:vulnerabilities:getAdvisories",
  summary: "Vulnerability advisories matching the API's filters.",
  args: GetAdvisoriesArgsSchema,
  result: GetAdvisoriesResultSchema,
  invoke: (args) => getAdvisories(args as GetAdvisoriesArgs),
});

const TOKEN = declaration.token;

export async function getAdvisories(
  args: GetAdvisoriesArgs = {},
  _opts?: pulumi.InvokeOptions,
): Promise<GetAdvisoriesResult> {
  const { profile, ...filters } = parseArgs(TOKEN, GetAdvisoriesArgsSchema, args);
  return withProgramClient(profile, { action: "list", type: TOKEN }, async (client) => ({
    advisories: await collect(client.advisories.list({ ...filters, pageSize: DATA_SOURCE_PAGE_SIZE })),
  }));
}

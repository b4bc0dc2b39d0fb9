/**
 * platform.vulnerabilities.getAdvisories / getAdvisoriesOutput: vulnerability advisories with the filters
 * the API offers (OpenAPI ListAdvisories), paged through 200 at a time.
 *
 * May import: @pulumi/pulumi, ../core/program-client, ../../sdk.
 */
import * as pulumi from "@pulumi/pulumi";
import type { Advisory } from "../../sdk";
import { DATA_SOURCE_PAGE_SIZE, ProfileArgs, collect, outputForm, withProgramClient } from "../core/program-client";

/** The API's advisory filters; list filters match any of the values given. */
export interface AdvisoryFilters {
  /** Only advisories below this group (uidp.descendants_of). */
  descendantsOf?: string;
  /** Only advisories directly in this group (uidp.children_of). */
  childrenOf?: string;
  advisoryIds?: string[];
  legacyAdvisoryIds?: string[];
  /** Exact artifact (package) names. */
  artifactNames?: string[];
  artifactTypes?: string[];
  /** e.g. x86_64, aarch64. */
  artifactArchitectures?: string[];
  /** Exact component names. */
  componentNames?: string[];
  componentTypes?: string[];
  componentLocations?: string[];
  /** Vulnerability aliases: CVE-..., GHSA-... */
  aliases?: string[];
  /** An origin package: all advisories of it and its subpackages. */
  origin?: string;
  /** e.g. REVIEW_STATE_PENDING. */
  eventReviewStates?: string[];
  eventAuthors?: string[];
  excludeEventAuthors?: string[];
  eventReviewers?: string[];
  /** e.g. EVENT_TYPE_FILTER_FIXED. */
  eventTypes?: string[];
  latestEventType?: string;
  /** Free-text query. */
  query?: string;
  /** Server-side order, e.g. "created_at desc". */
  orderBy?: string;
}

export interface GetAdvisoriesArgs extends AdvisoryFilters, ProfileArgs {}

export interface GetAdvisoriesResult {
  advisories: Advisory[];
}

export function getAdvisories(args: GetAdvisoriesArgs = {}, _opts?: pulumi.InvokeOptions): Promise<GetAdvisoriesResult> {
  const { profile, ...filters } = args;
  return withProgramClient(profile, { action: "list", type: "platform:vulnerabilities:getAdvisories" }, async (client) => ({
    advisories: await collect(client.advisories.list({ ...filters, pageSize: DATA_SOURCE_PAGE_SIZE })),
  }));
}

export const getAdvisoriesOutput = outputForm(getAdvisories);

/**
 * Vulnerability advisories, read-only.
 *
 *   GET /vulnerabilities/v2beta1/advisories                  list (filters as the OpenAPI; arrays repeat the name)
 *   GET /vulnerabilities/v2beta1/advisories/{advisory_uid}   get
 */
import { resourcePath, type PageQuery, type UidpFilters } from "../core";
import type { PagePromise } from "../pagination";
import { Advisory, AdvisoryList } from "../schemas/advisories";
import { APIResource } from "./resource";

export type { Advisory } from "../schemas/advisories";

export interface AdvisoryListQuery extends PageQuery, UidpFilters {
  /** `advisory_ids`, e.g. CGA-xvgw-cvr7-9g2q. */
  advisoryIds?: string[];
  /** `legacy_advisory_ids`. */
  legacyAdvisoryIds?: string[];
  /** `aliases`: CVE, GHSA, ... */
  aliases?: string[];
  /** `artifact_names`: exact artifact names. */
  artifactNames?: string[];
  /** `artifact_types`. */
  artifactTypes?: string[];
  /** `artifact_architectures`, e.g. x86_64, aarch64. */
  artifactArchitectures?: string[];
  /** `component_names`: exact component names. */
  componentNames?: string[];
  /** `component_types`. */
  componentTypes?: string[];
  /** `component_locations`. */
  componentLocations?: string[];
  /** `origin`: the origin package. */
  origin?: string;
  /** `event_review_states`, e.g. REVIEW_STATE_PENDING. */
  eventReviewStates?: string[];
  /** `event_authors`. */
  eventAuthors?: string[];
  /** `exclude_event_authors`. */
  excludeEventAuthors?: string[];
  /** `event_reviewers`. */
  eventReviewers?: string[];
  /** `event_types`, e.g. EVENT_TYPE_FILTER_FIXED. */
  eventTypes?: string[];
  /** `latest_event_type`. */
  latestEventType?: string;
  /** `query`: free-text search. */
  query?: string;
}

const COLLECTION = "/vulnerabilities/v2beta1/advisories";

export class Advisories extends APIResource {
  list(query: AdvisoryListQuery = {}): PagePromise<Advisory> {
    return this.core.list("advisories.list", COLLECTION, { ...query }, AdvisoryList);
  }

  async get(uid: string): Promise<Advisory> {
    return this.core.request({ method: "GET", path: resourcePath(COLLECTION, uid), schema: Advisory });
  }
}

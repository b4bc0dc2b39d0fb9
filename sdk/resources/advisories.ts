/**
 * Vulnerability advisories, read-only.
 *
 *   GET /vulnerabilities/v2beta1/advisories                  list (filters as the OpenAPI; arrays repeat the name)
 *   GET /vulnerabilities/v2beta1/advisories/{advisory_uid}   get
 */
import { COLLECTIONS } from "../collections";
import type { PageQuery, UidpFilters } from "../core";
import { Advisory, AdvisoryList } from "../schemas/advisories";
import { ReadableResource, type ResourceCollection } from "./resource";

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

export class Advisories extends ReadableResource<Advisory, AdvisoryListQuery> {
  protected readonly collection: ResourceCollection<Advisory> = {
    name: "advisories",
    path: COLLECTIONS.advisories.path,
    item: Advisory,
    page: AdvisoryList,
  };
}

/** Advisories: read-only (created by seeding), with the OpenAPI's list filters. */
import { EVENT_TYPE_FILTER_UNSPECIFIED, EVENT_TYPE_MEMBERS } from "../../sdk/schemas/advisories";
import { queryList, queryParam } from "../listing";
import type { StoredObject } from "../store";
import { collectionSpec, baseWire, type CollectionSpec } from "./crud";

const ADVISORY_LIST_FILTERS: [string, string][] = [
  ["advisoryIds", "advisoryId"],
  ["legacyAdvisoryIds", "legacyAdvisoryId"],
  ["artifactNames", "artifactName"],
  ["artifactTypes", "artifactType"],
  ["artifactArchitectures", "artifactArchitecture"],
  ["componentNames", "componentName"],
  ["componentTypes", "componentType"],
  ["componentLocations", "componentLocation"],
];

/** The EVENT_TYPE_FILTER_* values, from the OpenAPI's AdvisoryEvent (sdk/schemas/advisories.ts). */
const EVENT_TYPE_FILTERS = [EVENT_TYPE_FILTER_UNSPECIFIED, ...EVENT_TYPE_MEMBERS.keys()];
const REVIEW_STATES = [
  "REVIEW_STATE_UNSPECIFIED",
  "REVIEW_STATE_PENDING",
  "REVIEW_STATE_APPROVED",
  "REVIEW_STATE_REQUEST_CHANGES",
  "REVIEW_STATE_REJECTED",
];
/** An event without a review state reads as pending (see toWire). */
const DEFAULT_REVIEW_STATE = "REVIEW_STATE_PENDING";

type Event = Record<string, unknown>;
const eventsOf = (o: StoredObject): Event[] => (o.fields.events as Event[] | undefined) ?? [];
const reviewStateOf = (e: Event): unknown => e.reviewState ?? DEFAULT_REVIEW_STATE;
const isOfType = (e: Event, filter: string): boolean => {
  const member = EVENT_TYPE_MEMBERS.get(filter);
  return member !== undefined && e[member] !== undefined && e[member] !== null;
};

/** The most recent approved event (by createTime; the later one in the list on a tie), if any. */
function latestApproved(o: StoredObject): Event | undefined {
  let latest: Event | undefined;
  for (const e of eventsOf(o)) {
    if (reviewStateOf(e) !== "REVIEW_STATE_APPROVED") continue;
    if (latest === undefined || String(e.createTime ?? "") >= String(latest.createTime ?? "")) latest = e;
  }
  return latest;
}

/** The event filters: each a predicate over an advisory, given the parameter's values. */
const EVENT_FILTERS: [string, (values: string[]) => (o: StoredObject) => boolean][] = [
  ["eventReviewStates", (v) => (o) => eventsOf(o).some((e) => v.includes(String(reviewStateOf(e))))],
  ["eventAuthors", (v) => (o) => eventsOf(o).some((e) => v.includes(String(e.author)))],
  ["excludeEventAuthors", (v) => (o) => !eventsOf(o).some((e) => v.includes(String(e.author)))],
  ["eventReviewers", (v) => (o) => eventsOf(o).some((e) => v.includes(String(e.reviewer)))],
  ["eventTypes", (v) => (o) => eventsOf(o).some((e) => v.some((t) => isOfType(e, t)))],
];

const ADVISORY_REQUIRED = [
  "author",
  "artifactName",
  "artifactType",
  "artifactArchitecture",
  "componentName",
  "componentLocation",
  "componentType",
];

export const advisories: CollectionSpec = {
  ...collectionSpec("advisories"),
  sortable: ["uid", "advisoryId", "artifactName", "componentName", "createTime", "updateTime"],
  listParams: {
    ...Object.fromEntries(ADVISORY_LIST_FILTERS.map(([param]) => [param, { each: "text" }])),
    aliases: { each: "text" },
    query: "text",
    origin: {
      refused:
        "it resolves an origin package's subpackages, which the emulator's seeded advisories do not describe; filter by artifactNames",
    },
    eventReviewStates: { each: REVIEW_STATES },
    eventAuthors: { each: "text" },
    excludeEventAuthors: { each: "text" },
    eventReviewers: { each: "text" },
    eventTypes: { each: EVENT_TYPE_FILTERS },
    latestEventType: EVENT_TYPE_FILTERS,
  },
  filters: (query) => {
    const tests: ((o: StoredObject) => boolean)[] = [];
    const key: unknown[] = [];
    for (const [param, field] of ADVISORY_LIST_FILTERS) {
      const values = queryList(query, param);
      if (values.length === 0) continue;
      key.push(param, values);
      tests.push((o) => values.includes(o.fields[field] as string));
    }
    const aliases = queryList(query, "aliases");
    if (aliases.length > 0) {
      key.push("aliases", aliases);
      tests.push((o) => ((o.fields.aliases as string[] | undefined) ?? []).some((a) => aliases.includes(a)));
    }
    for (const [param, filter] of EVENT_FILTERS) {
      // UNSPECIFIED values say nothing (the proto default); a list of only those filters nothing.
      const values = queryList(query, param).filter((v) => !v.endsWith("_UNSPECIFIED"));
      if (values.length === 0) continue;
      key.push(param, values);
      tests.push(filter(values));
    }
    const latest = queryParam(query, "latestEventType", "latest_event_type");
    if (latest !== undefined && latest !== EVENT_TYPE_FILTER_UNSPECIFIED) {
      key.push("latest", latest);
      tests.push((o) => {
        const event = latestApproved(o);
        return event !== undefined && isOfType(event, latest);
      });
    }
    const text = queryParam(query, "query");
    if (text !== undefined && text !== "") {
      const needle = text.toLowerCase();
      key.push("query", needle);
      tests.push((o) =>
        [
          o.fields.advisoryId,
          o.fields.artifactName,
          o.fields.componentName,
          ...((o.fields.aliases as string[] | undefined) ?? []),
        ].some((v) => typeof v === "string" && v.toLowerCase().includes(needle)),
      );
    }
    if (tests.length === 0) return undefined;
    return { key: JSON.stringify(key), test: (o) => tests.every((t) => t(o)) };
  },
  toWire: (o) => {
    const events = (o.fields.events as Record<string, unknown>[] | undefined) ?? [];
    return {
      // Members the OpenAPI marks required default to empty values when a seed leaves them out.
      ...Object.fromEntries(ADVISORY_REQUIRED.map((f) => [f, ""])),
      aliases: [],
      ...baseWire(o),
      events: events.map((e) => ({ author: "", reviewState: "REVIEW_STATE_PENDING", ...e })),
    };
  },
};

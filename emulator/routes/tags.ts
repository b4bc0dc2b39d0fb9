/** Tags: read-only (created by seeding); a tag lives under a repo, whose group decides access. */
import { parseBoolean, parseTimestamp, queryParam, type Query } from "../listing";
import type { StoredObject } from "../store";
import { collectionSpec, baseWire, type CollectionSpec } from "./crud";
import { parentOf } from "../../sdk/uidp";

/**
 * Tag names the list leaves out unless asked for (OpenAPI ListTags: "Include tags of the form ..."). A proto3
 * boolean that is not sent is false, so by default none of these forms is listed.
 */
const OPTIONAL_FORMS: [string, string, RegExp][] = [
  ["includeReferrers", "include_referrers", /^sha256-/],
  ["includeDates", "include_dates", /-20\d{6}$/],
  ["includeEpochs", "include_epochs", /-r[0-9]+$/],
];

function tagFilters(query: Query): { key: string; test: (o: StoredObject) => boolean } | undefined {
  const tests: ((o: StoredObject) => boolean)[] = [];
  const key: unknown[] = [];
  const digest = queryParam(query, "digest");
  if (digest !== undefined) {
    key.push("digest", digest);
    tests.push((o) => o.fields.digest === digest);
  }
  const since = queryParam(query, "updatedSince", "updated_since");
  const sinceMs = since === undefined ? undefined : parseTimestamp(since);
  if (sinceMs !== undefined) {
    key.push("since", sinceMs);
    // "The timestamp after which returned records were updated": strictly after.
    tests.push((o) => Date.parse(o.updateTime ?? o.createTime) > sinceMs);
  }
  for (const [camel, snake, form] of OPTIONAL_FORMS) {
    const raw = queryParam(query, camel, snake);
    if (raw !== undefined && parseBoolean(raw) === true) continue;
    key.push(`no-${camel}`);
    tests.push((o) => !form.test(String(o.fields.name)));
  }
  return { key: JSON.stringify(key), test: (o) => tests.every((t) => t(o)) };
}

export const tags: CollectionSpec = {
  ...collectionSpec("tags"),
  sortable: ["uid", "name", "digest", "createTime", "updateTime"],
  // A tag lives under a repo; access is decided by the repo's group.
  accessGroup: (o) => parentOf(o.parent) ?? "",
  listParams: {
    name: "text",
    digest: "text",
    updatedSince: "date-time",
    includeReferrers: "boolean",
    includeDates: "boolean",
    includeEpochs: "boolean",
  },
  filters: tagFilters,
  toWire: (o) => {
    const { createTime: _c, ...wire } = baseWire(o);
    return wire;
  },
};

/** Advisories: read-only (created by seeding), with the OpenAPI's list filters. */
import { queryList, queryParam } from "../listing";
import type { StoredObject } from "../store";
import { baseWire, type CollectionSpec } from "./crud";

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
  kind: "advisories",
  plural: "advisories",
  label: "advisory",
  prefix: "/vulnerabilities/v2beta1/advisories",
  capability: "CAP_ADVISORIES",
  sortable: ["uid", "advisoryId", "artifactName", "componentName", "createTime", "updateTime"],
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

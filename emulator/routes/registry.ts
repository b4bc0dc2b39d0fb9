/** Read-only collections (repos, tags, advisories; created by seeding) and the v1 endpoints over the same data. */
import { z } from "zod";
import { GROUP_NAME_PATTERN } from "../../sdk/schemas";
import { underAny } from "../access";
import { queryList, queryParam } from "../listing";
import type { StoredObject } from "../store";
import { baseWire, crudRoutes, loadVisible, parentOfUid, withBothSpellings, type ResourceSpec } from "./crud";
import { groups, identities, lookupIdentity } from "./iam";
import { notFound } from "../errors";
import type { Route, RouteContext } from "./types";

export const repos: ResourceSpec = {
  kind: "repos",
  plural: "repos",
  label: "repo",
  prefix: "/registry/v2beta1/repos",
  capability: "CAP_REPO",
  sortable: ["uid", "name", "description", "createTime", "updateTime", "catalogTier"],
  toWire: (o) => baseWire(o),
};

export const tags: ResourceSpec = {
  kind: "tags",
  plural: "tags",
  label: "tag",
  prefix: "/registry/v2beta1/tags",
  capability: "CAP_TAG",
  sortable: ["uid", "name", "digest", "createTime", "updateTime"],
  // A tag lives under a repo; access is decided by the repo's group.
  accessGroup: (o) => o.parent.slice(0, o.parent.lastIndexOf("/")),
  accessGroupOfUid: (uid) => parentOfUid(parentOfUid(uid)),
  filters: (query) => {
    const digest = queryParam(query, "digest");
    return digest === undefined ? undefined : { key: digest, test: (o) => o.fields.digest === digest };
  },
  toWire: (o) => {
    const { createTime: _c, ...wire } = baseWire(o);
    return wire;
  },
};

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

export const advisories: ResourceSpec = {
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

function v1Group(o: StoredObject): Record<string, unknown> {
  return {
    id: o.uid,
    name: o.fields.name,
    description: (o.fields.description as string | undefined) ?? "",
    resourceLimits: { clusters: 0, idps: 0, repositories: 0 },
    verified: o.fields.verified ?? false,
    createdAt: o.createTime,
    updatedAt: o.updateTime ?? o.createTime,
  };
}

/** v1 lists: everything the caller may list, filtered, in uid order, under `items`. */
function v1List(spec: ResourceSpec, map: (o: StoredObject) => Record<string, unknown>) {
  return (ctx: RouteContext): Record<string, unknown> => {
    const roots = ctx.svc.access.grantRoots(ctx.caller, `${spec.capability}_LIST`);
    const query = withBothSpellings(ctx.query);
    const descendantsOf = queryParam(query, "uidp.descendants_of");
    const childrenOf = queryParam(query, "uidp.children_of");
    const name = queryParam(query, "name");
    // `id` (repeatable): exactly these objects, as the v1 clients filter (the Terraform provider's data sources).
    const ids = queryList(query, "id");
    const accessGroup = spec.accessGroup ?? ((o: StoredObject) => o.parent);
    const items = [...ctx.svc.store.all(spec.kind)]
      .filter((o) => underAny(accessGroup(o), roots))
      .filter((o) => descendantsOf === undefined || o.uid.startsWith(`${descendantsOf}/`))
      .filter((o) => childrenOf === undefined || o.parent === childrenOf)
      .filter((o) => name === undefined || o.fields.name === name)
      .filter((o) => ids.length === 0 || ids.includes(o.uid))
      .sort((a, b) => (a.uid < b.uid ? -1 : 1))
      .map(map);
    return { items };
  };
}

const V1GroupPut = z.object({
  name: z
    .string({ error: "name is required" })
    .regex(GROUP_NAME_PATTERN, "name must match ^[a-z0-9 ._-]{1,}$"),
  description: z.string().optional(),
});

/**
 * GET /iam/v1/identities/lookup?issuer=&subject= (the Terraform identity data source): the v1 form of the identity
 * v2's lookupIdentity finds, with `id` for uid; 5 when there is none the caller may see.
 */
function v1LookupIdentity(ctx: RouteContext): Record<string, unknown> {
  const { issuer, subject, found } = lookupIdentity(ctx);
  if (found === undefined) throw notFound(`identity with issuer ${issuer} and subject ${subject}`);
  const { uid, ...wire } = identities.toWire(found, ctx);
  const { createTime, updateTime, ...rest } = wire;
  return { id: uid, ...rest, createdAt: createTime, updatedAt: updateTime ?? createTime };
}

/** v1 update: omitted fields are reset to their zero values (description → ""). */
function v1Update(ctx: RouteContext): Record<string, unknown> {
  const object = loadVisible(groups, ctx, ctx.uid, "UPDATE");
  const body = ctx.svc.parseBody(V1GroupPut, ctx.body);
  const next: StoredObject = {
    ...object,
    fields: { ...object.fields, name: body.name, description: body.description ?? "" },
    updateTime: ctx.svc.now(),
  };
  ctx.svc.store.put("groups", next);
  return v1Group(next);
}

export function registryRoutes(): Route[] {
  return [
    ...crudRoutes(repos),
    ...crudRoutes(tags),
    ...crudRoutes(advisories),
    { method: "GET", url: "/iam/v1/groups", handler: v1List(groups, v1Group) },
    {
      method: "GET",
      url: "/iam/v1/groups/*",
      handler: (ctx) => v1Group(loadVisible(groups, ctx, ctx.uid, "LIST")),
    },
    { method: "GET", url: "/iam/v1/identities/lookup", handler: v1LookupIdentity },
    { method: "PUT", url: "/iam/v1/groups/*", handler: v1Update },
    { method: "PATCH", url: "/iam/v1/groups/*", handler: v1Update },
    {
      method: "GET",
      url: "/registry/v1/repos",
      handler: v1List(repos, (o) => ({
        id: o.uid,
        name: o.fields.name,
        description: (o.fields.description as string | undefined) ?? "",
        createdAt: o.createTime,
        updatedAt: o.updateTime ?? o.createTime,
      })),
    },
  ];
}

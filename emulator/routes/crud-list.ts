/**
 * The list every v2 collection shares: its query parameters (both spellings, each refused or honoured), the
 * filters on the object itself and the scope it is read from, what the caller may see, and pages
 * (../listing.ts). The v1 lists (./v1.ts) read the same filters.
 */
import { underAny } from "../../sdk/access-model";
import { defineOwn } from "../../sdk/schemas/own-keys";
import {
  PAGING_PARAMS,
  UIDP_PARAMS,
  checkQuery,
  parseListParams,
  type ListParams,
  type ParamRule,
  type Query,
} from "../listing";
import type { StoredObject } from "../store";
import { cap, defaultAccessGroup, type CollectionSpec } from "./crud";
import type { RouteContext } from "./types";
import { isBelow, isRoot } from "../../sdk/uidp";

/** `artifactNames` → `artifact_names`, `uidp.childrenOf` → `uidp.children_of`. */
function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** `artifact_names` → `artifactNames`, `uidp.children_of` → `uidp.childrenOf`. */
function camelCase(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * The query with every parameter under both spellings, as the real service accepts both (spec README):
 * list handlers and filters name one spelling and still see a parameter sent in the other (the SDK sends
 * snake_case, the OpenAPI names camelCase). A spelling the client sent itself is never overwritten.
 */
export function withBothSpellings(query: Query): Query {
  const out: Query = { ...query };
  for (const [name, value] of Object.entries(query)) {
    for (const alias of [snakeCase(name), camelCase(name)])
      if (!Object.hasOwn(out, alias)) defineOwn(out, alias, value);
  }
  return out;
}

/** Every parameter a v2 list of this collection takes, with its rule. */
export function listParameters(spec: CollectionSpec): Readonly<Record<string, ParamRule>> {
  return { ...UIDP_PARAMS, ...(spec.listParams ?? { name: "text" }), ...PAGING_PARAMS };
}

/**
 * The filters of a list that test the object itself (name, uidp.ids, uidp.inRoot, uidp.ancestorsOf), as every list,
 * v2 and v1, reads them; the scopes (childrenOf, descendantsOf) choose where the candidates come from.
 */
export function matchesListFilters(params: ListParams, o: StoredObject): boolean {
  return (
    (params.name === undefined || o.fields.name === params.name) &&
    (params.ids === undefined || params.ids.includes(o.uid)) &&
    (params.inRoot !== true || isRoot(o.uid)) &&
    (params.ancestorsOf === undefined || isBelow(params.ancestorsOf, o.uid))
  );
}

/** Whether `o` lies in the scope `uidp.childrenOf` / `uidp.descendantsOf` ask for (its parent is, or is below). */
export function inListScope(params: ListParams, o: StoredObject): boolean {
  return (
    (params.childrenOf === undefined || o.parent === params.childrenOf) &&
    (params.descendantsOf === undefined ||
      o.parent === params.descendantsOf ||
      isBelow(o.parent, params.descendantsOf))
  );
}

export function listHandler(spec: CollectionSpec) {
  const rules = listParameters(spec);
  return (ctx: RouteContext): Record<string, unknown> => {
    checkQuery(ctx.query, rules, `GET ${spec.prefix}`);
    const query = withBothSpellings(ctx.query);
    const params = parseListParams(query, spec.sortable);
    const extra = spec.filters?.(query);
    const accessGroup = spec.accessGroup ?? defaultAccessGroup;
    const { store, access } = ctx.svc;
    const queryKey = JSON.stringify([
      spec.kind,
      params.descendantsOf,
      params.childrenOf,
      params.ancestorsOf,
      params.inRoot,
      params.ids,
      params.name,
      extra?.key,
      params.orderField,
      params.descending,
    ]);
    const candidates = function* (): Iterable<StoredObject> {
      const roots = access.grantRoots(ctx.caller, cap(spec, "LIST"));
      const matches = (o: StoredObject): boolean =>
        matchesListFilters(params, o) && (extra === undefined || extra.test(o));
      if (spec.globalObjects !== undefined)
        for (const o of spec.globalObjects(params)) if (matches(o)) yield o;
      if (roots.size === 0) return;
      const source =
        params.childrenOf !== undefined ? store.children(spec.kind, params.childrenOf) : store.all(spec.kind);
      for (const o of source) {
        if (!inListScope(params, o)) continue;
        if (!matches(o)) continue;
        if (!underAny(accessGroup(o), roots)) continue;
        yield o;
      }
    };
    const page = ctx.svc.lister.page({
      params,
      queryKey,
      cacheKey: `${queryKey}|${ctx.caller.identityUid}`,
      version: store.version,
      now: ctx.svc.clock.now().getTime(),
      candidates,
    });
    return {
      [spec.plural]: page.items.map((o) => spec.toWire(o, ctx)),
      ...(page.nextPageToken !== undefined ? { nextPageToken: page.nextPageToken } : {}),
      totalCount: String(page.totalCount),
      skipped: page.skipped,
    };
  };
}

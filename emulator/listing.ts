/**
 * Real pagination for every v2 list: filters (uidp.descendants_of, uidp.children_of, name, and per-resource
 * ones), order_by on any sortable field with ties broken by uid, skip, and opaque keyset page tokens bound to
 * the query that produced them and valid three days on the emulator clock.
 *
 * Sorted results are cached per (query, caller) and store version, so paging through 50,000 groups costs one
 * sort, then a binary search per page. May import: ./bounds, ./errors, ./store, node builtins.
 */
import { createHash } from "node:crypto";
import { MAX_INT32 } from "./bounds";
import { badField } from "./errors";
import type { StoredObject } from "./store";

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;
export const PAGE_TOKEN_LIFETIME_MS = 3 * 24 * 60 * 60 * 1000;

export type Query = Record<string, unknown>;

/** A query parameter in either spelling (`page_size` / `pageSize`); repeated parameters give their first value. */
export function queryParam(query: Query, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = query[name];
    if (typeof value === "string") return value;
    if (Array.isArray(value) && typeof value[0] === "string") return value[0];
  }
  return undefined;
}

/** Every value of a repeatable parameter, also split on commas. */
export function queryList(query: Query, ...names: string[]): string[] {
  const values: string[] = [];
  for (const name of names) {
    const value = query[name];
    const raw =
      typeof value === "string"
        ? [value]
        : Array.isArray(value)
          ? value.filter((v) => typeof v === "string")
          : [];
    for (const item of raw)
      values.push(
        ...item
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s.length > 0),
      );
  }
  return values;
}

function snakeToCamel(s: string): string {
  return s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

export interface ListParams {
  descendantsOf?: string;
  childrenOf?: string;
  name?: string;
  pageSize: number;
  pageToken?: string;
  orderField: string;
  descending: boolean;
  skip: number;
}

function nonNegativeInteger(raw: string | undefined, field: string): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  const text = raw.trim();
  // An int32 on the real service: 400 digits are refused, not read as Infinity.
  if (!/^\d+$/.test(text) || text.replace(/^0+(?=\d)/, "").length > 10 || Number(text) > MAX_INT32)
    throw badField(field, `${field} must be an integer from 0 to ${MAX_INT32}, got "${raw.slice(0, 40)}"`);
  return Number.parseInt(text, 10);
}

export function parseListParams(query: Query, sortableFields: readonly string[]): ListParams {
  const pageSize = nonNegativeInteger(queryParam(query, "page_size", "pageSize"), "page_size");
  const skip = nonNegativeInteger(queryParam(query, "skip"), "skip") ?? 0;
  const orderBy = (queryParam(query, "order_by", "orderBy") ?? "").trim();
  let orderField = "createTime";
  let descending = false;
  if (orderBy !== "") {
    const match = /^([A-Za-z_.]+)(?:\s+(asc|desc))?$/i.exec(orderBy);
    const field = match?.[1] === undefined ? undefined : fieldAlias(match[1]);
    if (field === undefined || !sortableFields.includes(field)) {
      throw badField(
        "order_by",
        `order_by "${orderBy}" is not sortable; use one of ${sortableFields.join(", ")}, optionally followed by " desc"`,
      );
    }
    orderField = field;
    descending = match?.[2]?.toLowerCase() === "desc";
  }
  const params: ListParams = {
    pageSize:
      pageSize === undefined || pageSize === 0 ? DEFAULT_PAGE_SIZE : Math.min(pageSize, MAX_PAGE_SIZE),
    orderField,
    descending,
    skip,
  };
  const descendantsOf = queryParam(query, "uidp.descendants_of", "uidp.descendantsOf");
  const childrenOf = queryParam(query, "uidp.children_of", "uidp.childrenOf");
  const name = queryParam(query, "name");
  const pageToken = queryParam(query, "page_token", "pageToken");
  if (descendantsOf !== undefined && descendantsOf !== "") params.descendantsOf = descendantsOf;
  if (childrenOf !== undefined && childrenOf !== "") params.childrenOf = childrenOf;
  if (name !== undefined && name !== "") params.name = name;
  if (pageToken !== undefined && pageToken !== "") params.pageToken = pageToken;
  return params;
}

function fieldAlias(raw: string): string {
  if (raw === "created_at" || raw === "create_time") return "createTime";
  if (raw === "updated_at" || raw === "update_time") return "updateTime";
  return snakeToCamel(raw);
}

type SortValue = string | number | boolean | undefined;

export function sortValue(object: StoredObject, field: string): SortValue {
  if (field === "uid") return object.uid;
  if (field === "createTime") return object.createTime;
  if (field === "updateTime") return object.updateTime;
  const value = object.fields[field];
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean"
    ? value
    : undefined;
}

function compareValues(a: SortValue, b: SortValue): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  if (typeof a === typeof b) return a < b ? -1 : 1;
  return String(a) < String(b) ? -1 : 1;
}

function comparator(
  field: string,
  descending: boolean,
): (a: [SortValue, string], b: [SortValue, string]) => number {
  return (a, b) => {
    const primary = compareValues(a[0], b[0]);
    if (primary !== 0) return descending ? -primary : primary;
    return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
  };
}

interface PageTokenBody {
  /** Hash of the query the token belongs to. */
  q: string;
  /** The last item's sort key and uid (keyset cursor). */
  k: [SortValue, string];
  /** Issue time, epoch ms on the emulator clock. */
  t: number;
}

function encodeToken(body: PageTokenBody): string {
  return Buffer.from(JSON.stringify(body), "utf8").toString("base64url");
}

function decodeToken(token: string): PageTokenBody {
  try {
    const body = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as PageTokenBody;
    if (
      typeof body.q === "string" &&
      Array.isArray(body.k) &&
      typeof body.k[1] === "string" &&
      typeof body.t === "number"
    ) {
      return body;
    }
  } catch {
    // fall through
  }
  throw badField("page_token", "page_token is not a token this service issued");
}

export interface Page {
  items: StoredObject[];
  nextPageToken?: string;
  totalCount: number;
  skipped: number;
}

interface CacheEntry {
  version: number;
  sorted: StoredObject[];
  keys: [SortValue, string][];
}

export class Lister {
  private cache = new Map<string, CacheEntry>();

  constructor(private readonly maxEntries = 256) {}

  /**
   * `queryKey` identifies filters and order (not paging); `cacheKey` adds the caller. `candidates` yields every
   * object that passes filters and access.
   */
  page(options: {
    params: ListParams;
    queryKey: string;
    cacheKey: string;
    version: number;
    now: number;
    candidates: () => Iterable<StoredObject>;
  }): Page {
    const { params, now } = options;
    const queryHash = createHash("sha256").update(options.queryKey).digest("base64url").slice(0, 22);
    const entry = this.sorted(options.cacheKey, options.version, options.candidates, params);
    let start = 0;
    if (params.pageToken !== undefined) {
      const token = decodeToken(params.pageToken);
      if (token.q !== queryHash) throw badField("page_token", "page_token was issued for a different query");
      if (now - token.t <= PAGE_TOKEN_LIFETIME_MS)
        start = upperBound(entry.keys, token.k, comparator(params.orderField, params.descending));
    }
    start += params.skip;
    const end = Math.min(start + params.pageSize, entry.sorted.length);
    const items = start < end ? entry.sorted.slice(start, end) : [];
    const page: Page = { items, totalCount: entry.sorted.length, skipped: params.skip };
    const last = entry.keys[end - 1];
    if (end < entry.sorted.length && last !== undefined && items.length > 0) {
      page.nextPageToken = encodeToken({ q: queryHash, k: last, t: now });
    }
    return page;
  }

  private sorted(
    cacheKey: string,
    version: number,
    candidates: () => Iterable<StoredObject>,
    params: ListParams,
  ): CacheEntry {
    const cached = this.cache.get(cacheKey);
    if (cached !== undefined && cached.version === version) return cached;
    const keyed = [...candidates()].map((o) => ({
      o,
      k: [sortValue(o, params.orderField), o.uid] as [SortValue, string],
    }));
    const compare = comparator(params.orderField, params.descending);
    keyed.sort((a, b) => compare(a.k, b.k));
    const entry: CacheEntry = { version, sorted: keyed.map((x) => x.o), keys: keyed.map((x) => x.k) };
    if (this.cache.size >= this.maxEntries) this.cache.clear();
    this.cache.set(cacheKey, entry);
    return entry;
  }
}

/** Index of the first key strictly after `key`. */
function upperBound<K>(keys: K[], key: K, compare: (a: K, b: K) => number): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compare(keys[mid]!, key) <= 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * Real pagination for every v2 list: filters (uidp.descendants_of, uidp.children_of, name, and per-resource
 * ones), order_by on any sortable field with ties broken by uid, skip, and opaque keyset page tokens bound to
 * the query that produced them and valid three days on the emulator clock.
 *
 * Sorted results are cached per (query, caller) and store version, so paging through 50,000 groups costs one
 * sort, then a binary search per page.
 */
import { createHash } from "node:crypto";
import { MAX_INT32 } from "./bounds";
import { badField, invalidArgument } from "./errors";
import type { StoredObject } from "./store";
import { UIDP_PATTERN } from "../sdk/schemas/common";

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;
export const PAGE_TOKEN_LIFETIME_MS = 3 * 24 * 60 * 60 * 1000;

export type Query = Record<string, unknown>;

/** A query parameter in either spelling (`page_size` / `pageSize`); repeated parameters give their first value. */
export function queryParam(query: Query, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = Object.hasOwn(query, name) ? query[name] : undefined;
    if (typeof value === "string") return value;
    if (Array.isArray(value) && typeof value[0] === "string") return value[0];
  }
  return undefined;
}

/** Every value of a repeatable parameter, also split on commas. */
export function queryList(query: Query, ...names: string[]): string[] {
  const values: string[] = [];
  for (const name of names) {
    const value = Object.hasOwn(query, name) ? query[name] : undefined;
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

/**
 * The format of one value of a query parameter: "text" any string, "boolean" true/false, "date-time" RFC 3339,
 * "uid" one uid, "int32" an integer from 0 to 2^31-1, or a list of enum names. A uid is a root of 40 (or 16) hex
 * digits, then 16-hex segments joined by "/" (built-in roles: 40 hex); an empty string or uid is the proto3
 * default, no filter, but an empty integer, boolean, timestamp or enum is no value at all (grpc-gateway's
 * runtime/query.go parses it and refuses it).
 */
export type ParamFormat = "text" | "boolean" | "date-time" | "uid" | "int32" | readonly string[];

/**
 * What a list does with a query parameter (named in camelCase per segment, `uidp.inRoot`; the snake_case spelling
 * is the same parameter): honoured, its value checked against a format, given once (a parameter the OpenAPI does
 * not repeat takes one value: grpc-gateway answers "too many values" to a second), or `{ each: format }` for a
 * repeated one (`uidp.ids`: repeated, or comma-separated), or refused with a reason.
 * Every parameter the OpenAPI documents for a served list has a rule (test/emulator/list-parameters.test.ts);
 * one no rule names is refused too: a list never answers 200 to a filter it did not apply.
 */
export type ParamRule = ParamFormat | { each: ParamFormat } | { refused: string };

/** Paging and ordering, every v2 list (spec, "Pagination and ordering parameters"). */
export const PAGING_PARAMS: Readonly<Record<string, ParamRule>> = {
  pageSize: "int32",
  pageToken: "text",
  orderBy: "text",
  skip: "int32",
};

/** The uidp filters every v2 list of the OpenAPI documents. */
export const UIDP_PARAMS: Readonly<Record<string, ParamRule>> = {
  "uidp.ancestorsOf": "uid",
  "uidp.descendantsOf": "uid",
  "uidp.childrenOf": "uid",
  "uidp.inRoot": "boolean",
  "uidp.ids": { each: "uid" },
};

/** `uidp.in_root` → `uidp.inRoot`, `page_size` → `pageSize`. */
export function canonicalParam(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** A query boolean as grpc-gateway reads one (Go's strconv.ParseBool); undefined when it is none. */
export function parseBoolean(raw: string): boolean | undefined {
  if (["true", "True", "TRUE", "t", "T", "1"].includes(raw)) return true;
  if (["false", "False", "FALSE", "f", "F", "0"].includes(raw)) return false;
  return undefined;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** Milliseconds since the epoch of an RFC 3339 timestamp; undefined when the text is none. */
export function parseTimestamp(raw: string): number | undefined {
  const ms = Date.parse(raw);
  return RFC3339.test(raw) && Number.isFinite(ms) ? ms : undefined;
}

function formatProblem(rule: ParamFormat, value: string): string | undefined {
  if (rule === "int32") return isInt32(value) ? undefined : `must be an integer from 0 to ${MAX_INT32}`;
  if (rule === "uid")
    return value === "" || UIDP_PATTERN.test(value)
      ? undefined
      : "must be a uid: a root of 40 (or 16) hex digits, then 16-hex segments, joined by '/'";
  if (rule === "boolean") return parseBoolean(value) === undefined ? "must be true or false" : undefined;
  if (rule === "date-time")
    return parseTimestamp(value) === undefined
      ? "must be an RFC 3339 timestamp, e.g. 2025-01-31T12:00:00Z"
      : undefined;
  if (Array.isArray(rule)) return rule.includes(value) ? undefined : `must be one of ${rule.join(", ")}`;
  return undefined;
}

/**
 * Code 3 naming every parameter of `query` (as the client spelled it) that `rules` does not honour, or whose
 * value breaks its format; `where` names the operation in the message.
 */
export function checkQuery(query: Query, rules: Readonly<Record<string, ParamRule>>, where: string): void {
  const violations: { field: string; description: string }[] = [];
  for (const [name, value] of Object.entries(query)) {
    // The client's name is looked up as data: `constructor` or `__proto__` is no rule of ours.
    const canonical = canonicalParam(name);
    const rule = Object.hasOwn(rules, canonical) ? rules[canonical] : undefined;
    if (rule === undefined) {
      violations.push({ field: name, description: `${name} is not a parameter of ${where}` });
      continue;
    }
    if (typeof rule === "object" && "refused" in rule) {
      violations.push({
        field: name,
        description: `${name} is not supported by the emulator: ${rule.refused}`,
      });
      continue;
    }
    const repeated = typeof rule === "object" && "each" in rule;
    const format: ParamFormat = repeated ? rule.each : rule;
    const values = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === "string");
    if (!repeated && values.length > 1) {
      violations.push({
        field: name,
        description: `${name} takes one value, got ${values.length}: it is not a repeated parameter`,
      });
      continue;
    }
    // A single value is checked whole (a comma is no part of a uid); a repeated one may also be comma-separated.
    const items = format === "text" ? [] : repeated ? values.flatMap((v) => v.split(",")) : values;
    const bad = items.find((v) => formatProblem(format, v.trim()) !== undefined);
    if (bad !== undefined)
      violations.push({
        field: name,
        description: `${name} ${formatProblem(format, bad.trim())}, got "${bad.slice(0, 40)}"`,
      });
  }
  if (violations.length > 0)
    throw invalidArgument(violations.map((v) => v.description).join("; "), violations);
}

export interface ListParams {
  descendantsOf?: string;
  childrenOf?: string;
  ancestorsOf?: string;
  /** uidp.inRoot=true: root-level objects only (no "/" in the uid). */
  inRoot?: boolean;
  /** uidp.ids: exactly these uids. */
  ids?: string[];
  name?: string;
  pageSize: number;
  pageToken?: string;
  orderField: string;
  descending: boolean;
  skip: number;
}

/** A non-negative int32 in decimal: 400 digits are no int32 (not Infinity), and an empty value is none. */
function isInt32(raw: string): boolean {
  const text = raw.trim();
  return /^\d+$/.test(text) && text.replace(/^0+(?=\d)/, "").length <= 10 && Number(text) <= MAX_INT32;
}

function nonNegativeInteger(raw: string | undefined, field: string): number | undefined {
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (!isInt32(raw))
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
  const ancestorsOf = queryParam(query, "uidp.ancestors_of", "uidp.ancestorsOf");
  const inRoot = queryParam(query, "uidp.in_root", "uidp.inRoot");
  const ids = queryList(query, "uidp.ids");
  if (ancestorsOf !== undefined && ancestorsOf !== "") params.ancestorsOf = ancestorsOf;
  if (inRoot !== undefined && parseBoolean(inRoot) === true) params.inRoot = true;
  if (ids.length > 0) params.ids = ids;
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

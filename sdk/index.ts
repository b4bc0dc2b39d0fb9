/** The SDK's public surface: the client, its errors, pages, options, retry helper and the wire schemas. */
export * from "./client";
export * from "./errors";
export * from "./schemas";
export * from "./pagination";
export * from "./config";
export * from "./retry";
export { resourcePath, encodeQuery, wireQueryName, type ListQuery, type PageQuery, type UidpFilters } from "./core";
export { SDK_VERSION } from "./version";

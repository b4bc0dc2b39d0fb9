/** platform.registry: data sources over registry repositories and their tags (read-only in v2beta1). */
// The data sources (getX and getXOutput), generated from their declarations.
export * from "./data-sources.generated";

/** platform.registry: data sources over registry repositories and their tags (read-only in v2beta1). */
export * from "./get-repos";
export * from "./get-repo";
export * from "./get-tags";

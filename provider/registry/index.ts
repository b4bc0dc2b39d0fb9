/** platform.registry: data sources over registry repositories (read-only in v2beta1). */
export * from "./get-repos";
export * from "./get-repo";

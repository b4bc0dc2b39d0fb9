/** platform.vulnerabilities: data sources over vulnerability advisories (read-only). */
export * from "./get-advisories";

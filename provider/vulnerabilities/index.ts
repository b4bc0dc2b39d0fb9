/** platform.vulnerabilities: data sources over vulnerability advisories (read-only). */
// The data sources (getX and getXOutput), generated from their declarations.
export * from "./data-sources.generated";

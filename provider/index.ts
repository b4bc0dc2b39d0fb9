/**
 * pulumi-platform: Pulumi resources and data sources for the Platform Management API v2beta1.
 *
 *   import * as platform from "pulumi-platform";
 *   const org = new platform.iam.Group("acme", { name: "acme" });
 *
 * Configuration (stack config `platform:*`, env PLATFORM_*, profiles) is described in the README's reference section.
 */
export * as iam from "./iam";
export * as registry from "./registry";
export * as vulnerabilities from "./vulnerabilities";

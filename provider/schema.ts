/**
 * The Pulumi package schema (schema.json) of pulumi-platform, derived from the catalogue's declarations (the zod
 * schemas the provider validates with, their docs and flags), so the two cannot disagree.
 * `scripts/generate-schema.js` writes it to the repository root; test/provider/schema.test.ts and
 * test/provider/declarations.test.ts fail when the file drifts from the declarations.
 *
 * JSON Schema comes from zod 4's z.toJSONSchema; this module maps it onto Pulumi's property-spec dialect
 * (named object types under #/types, maps as additionalProperties, replace-on-change flags).
 *
 * The schema describes the package served by the native plugin `pulumi-resource-platform` (plugin/): its
 * `version` is the package's, its `provider` section the provider's configuration, and its language sections
 * name the SDKs `pulumi package gen-sdk` makes from it. Its package metadata (homepage, repository, publisher,
 * logo, license, and `pluginDownloadURL`, where `pulumi plugin install` finds a release's plugin archives) comes
 * from package.json, set there once.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { DATA_SOURCES, RESOURCES } from "./catalogue";
import { CONFIG_SETTINGS, PROFILE_SETTINGS } from "./core/config";

export const PACKAGE_NAME = "platform";

/**
 * Pulumi's Java SDK (`com.pulumi:pulumi` on Maven Central) that the generated Java SDK depends on: the release of
 * pulumi-java whose code generator and language host scripts/build-engine.sh builds (`pulumi_java_version` there;
 * test/pulumi-versions.test.ts fails when they differ). Java's SDK has its own version line, unrelated to 3.x.
 */
export const PULUMI_JAVA_VERSION = "1.17.0";
/** The Java package prefix (and Maven group) of the generated Java SDK: `com.pulumiplatform.platform`. */
export const JAVA_BASE_PACKAGE = "com.pulumiplatform";

type Json = Record<string, unknown>;

/** A Pulumi property spec (the subset this package uses). */
export interface PropertySpec {
  type?: string;
  $ref?: string;
  items?: PropertySpec;
  additionalProperties?: PropertySpec;
  description?: string;
  secret?: boolean;
  willReplaceOnChanges?: boolean;
}

export interface ObjectTypeSpec {
  type: "object";
  description?: string;
  properties: Record<string, PropertySpec>;
  required?: string[];
}

/** Readable names for the object types the generic naming would call e.g. GetRolesResultRolesItem. */
const TYPE_NAMES: Record<string, string> = {
  "platform:iam:IdentityClaimMatch": "platform:iam:ClaimMatch",
  "platform:iam:GetIdentityResultClaimMatch": "platform:iam:ClaimMatch",
  "platform:iam:GetRolesResultRolesItem": "platform:iam:RoleInfo",
  "platform:registry:GetReposResultReposItem": "platform:registry:RepoInfo",
  "platform:registry:GetTagsResultTagsItem": "platform:registry:TagInfo",
  "platform:iam:GetIdentityProvidersResultIdentityProvidersItem": "platform:iam:IdentityProviderInfo",
  "platform:iam:AccountAssociationGithubAppInstallationsValue": "platform:iam:GitHubAppInstallations",
  "platform:iam:GitHubAppInstallationsInstallationsItem": "platform:iam:GitHubInstallation",
  "platform:vulnerabilities:GetAdvisoriesResultAdvisoriesItem": "platform:vulnerabilities:Advisory",
  "platform:vulnerabilities:AdvisoryEventsItem": "platform:vulnerabilities:AdvisoryEvent",
  "platform:vulnerabilities:AdvisorySeveritiesItem": "platform:vulnerabilities:Severity",
};

class TypeRegistry {
  readonly types: Record<string, ObjectTypeSpec> = {};

  /** Converts one JSON Schema node; nested objects with properties become named types. */
  convert(node: Json, typeToken: string): PropertySpec {
    const description = typeof node.description === "string" ? node.description : undefined;
    const withDescription = (spec: PropertySpec): PropertySpec =>
      description ? { ...spec, description } : spec;
    const variants = (node.anyOf ?? node.oneOf) as Json[] | undefined;
    if (Array.isArray(variants)) {
      const concrete = variants.filter((v) => v.type !== "null");
      if (concrete.length === 1)
        return this.convert({ ...concrete[0], description: node.description }, typeToken);
      return withDescription({ $ref: "pulumi.json#/Any" });
    }
    switch (node.type) {
      case "string":
      case "boolean":
      case "number":
      case "integer":
        return withDescription({ type: node.type });
      case "array":
        return withDescription({
          type: "array",
          items: this.convert((node.items as Json) ?? {}, `${typeToken}Item`),
        });
      case "object": {
        const properties = node.properties as Record<string, Json> | undefined;
        if (properties && Object.keys(properties).length > 0) {
          const name = TYPE_NAMES[typeToken] ?? typeToken;
          // First definition wins: the resource's (documented) form of a shared type comes first.
          this.types[name] ??= this.objectType(node, name);
          return withDescription({ $ref: `#/types/${name}` });
        }
        const additional = node.additionalProperties;
        if (additional && typeof additional === "object" && Object.keys(additional).length > 0) {
          return withDescription({
            type: "object",
            additionalProperties: this.convert(additional as Json, `${typeToken}Value`),
          });
        }
        return withDescription({ $ref: "pulumi.json#/Any" });
      }
      default:
        return withDescription({ $ref: "pulumi.json#/Any" });
    }
  }

  objectType(node: Json, typeToken: string): ObjectTypeSpec {
    const { properties, required } = this.properties(node, typeToken);
    const spec: ObjectTypeSpec = { type: "object", properties };
    if (typeof node.description === "string") spec.description = node.description;
    if (required.length > 0) spec.required = required;
    return spec;
  }

  /** The properties of an object node, nested types named `<typeToken><Key>`. */
  properties(
    node: Json,
    typeToken: string,
  ): { properties: Record<string, PropertySpec>; required: string[] } {
    const properties: Record<string, PropertySpec> = {};
    for (const [key, child] of Object.entries((node.properties as Record<string, Json> | undefined) ?? {})) {
      properties[key] = this.convert(child, `${typeToken}${key[0]!.toUpperCase()}${key.slice(1)}`);
    }
    const required = ((node.required as string[] | undefined) ?? []).filter((k) => k in properties);
    return { properties, required };
  }
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Json {
  return z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Json;
}

/** Strips the `platform:module:` prefix and capitalizes: platform:iam:getRoles → GetRoles. */
function typeStem(token: string): string {
  const name = token.split(":")[2]!;
  return name[0]!.toUpperCase() + name.slice(1);
}

/** The provider's configuration, from its one declaration (provider/core/config CONFIG_SETTINGS). */
const CONFIG_VARIABLES: Record<string, PropertySpec> = Object.fromEntries(
  Object.entries(CONFIG_SETTINGS).map(([name, setting]) => {
    const secret = "secret" in setting && setting.secret ? { secret: true } : {};
    const spec: PropertySpec =
      name === "profiles"
        ? {
            type: "object",
            ...secret,
            additionalProperties: { $ref: "#/types/platform:index:Profile" },
          }
        : { type: "string", ...secret };
    return [name, { ...spec, description: setting.doc }];
  }),
);

/** What package.json says of the package: the one place its version, license and release location are set. */
interface Manifest {
  name: string;
  version: string;
  license: string;
  homepage: string;
  repository: { url: string };
  /** The registry listing's publisher and logo, and where `pulumi plugin install` downloads the plugin from. */
  pulumiPackage: { publisher: string; logoUrl: string; pluginDownloadURL: string };
  /** `@pulumi/pulumi`: a caret range from the oldest Pulumi version tested, `^3.x.y`. */
  dependencies: { "@pulumi/pulumi": string };
}

/** The package.json of this package, found above this module (provider/ or dist/provider/). */
export function packageManifest(): Manifest {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (fs.existsSync(file)) {
      const manifest = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<Manifest>;
      if (manifest.name === "pulumi-platform" && manifest.version) return manifest as Manifest;
    }
    if (path.dirname(dir) === dir)
      throw new Error("no package.json of pulumi-platform above provider/schema");
  }
}

export function packageVersion(): string {
  return packageManifest().version;
}

/**
 * The oldest Pulumi SDK the packages support, `3.x.y`: the floor of package.json's caret range for @pulumi/pulumi,
 * which every SDK generated from the schema repeats in its own language's words (npm `^3.x.y`, PyPI
 * `pulumi>=3.x.y,<4.0.0`), so that a user's program on any newer 3.x keeps one copy of the Pulumi SDK.
 */
export function oldestPulumiVersion(manifest: Manifest = packageManifest()): string {
  const range = manifest.dependencies["@pulumi/pulumi"];
  const floor = /^\^(3\.\d+\.\d+)$/.exec(range);
  if (!floor) throw new Error(`package.json: @pulumi/pulumi must be a caret range ^3.x.y, not '${range}'`);
  return floor[1]!;
}

/** The provider's configuration (stack config `platform:*`, or an explicit provider's inputs), secrets marked. */
function providerSection(): Json {
  return {
    description:
      "The provider's connection settings: the stack's `platform:*` config for the default provider, or the " +
      "inputs of an explicit provider (one per organization, each with its own credentials). Unset settings " +
      "fall back to the PLATFORM_* environment variables.",
    inputProperties: CONFIG_VARIABLES,
  };
}

/** Builds the package schema. Deterministic: same code, same JSON. */
export function buildPackageSchema(version: string = packageVersion()): Json {
  const registry = new TypeRegistry();
  registry.types["platform:index:Profile"] = {
    type: "object",
    description: "One named set of connection settings (see the config variables of the same names).",
    properties: Object.fromEntries(PROFILE_SETTINGS.map((key) => [key, CONFIG_VARIABLES[key]!])),
  };

  const resources: Record<string, Json> = {};
  for (const { declaration } of RESOURCES) {
    const stem = `${declaration.module}:${declaration.name}`;
    const inputs = registry.properties(jsonSchema(declaration.inputSchema, "input"), `platform:${stem}`);
    for (const field of declaration.fields) {
      const spec = inputs.properties[field.key];
      if (field.replaces && spec) spec.willReplaceOnChanges = true;
    }
    const outputs = registry.properties(jsonSchema(declaration.outputSchema, "output"), `platform:${stem}`);
    for (const key of declaration.secrets) {
      for (const spec of [inputs.properties[key], outputs.properties[key]]) if (spec) spec.secret = true;
    }
    resources[declaration.token] = {
      description: declaration.summary,
      inputProperties: inputs.properties,
      requiredInputs: inputs.required,
      properties: { ...inputs.properties, ...outputs.properties },
      required: [...new Set([...inputs.required, ...outputs.required])].sort(),
    };
  }

  const functions: Record<string, Json> = {};
  for (const entry of DATA_SOURCES) {
    const stem = `${entry.token.split(":")[1]}:${typeStem(entry.token)}`;
    const args = registry.properties(jsonSchema(entry.args, "input"), `platform:${stem}Args`);
    const result = registry.properties(jsonSchema(entry.result, "output"), `platform:${stem}Result`);
    functions[entry.token] = {
      description: entry.summary,
      inputs: { properties: args.properties, ...(args.required.length ? { required: args.required } : {}) },
      outputs: {
        properties: result.properties,
        ...(result.required.length ? { required: result.required } : {}),
      },
    };
  }

  const manifest = packageManifest();
  return {
    name: PACKAGE_NAME,
    // The Java package prefix's middle: Pulumi's Java program generator (`pulumi import` printing Java) names input
    // types' classes by com.<namespace>.<package>, where the SDK generator takes language.java.basePackage.
    namespace: JAVA_BASE_PACKAGE.replace(/^com\./, ""),
    displayName: "Platform",
    version,
    description:
      "Pulumi resources and data sources for the Platform Management API v2beta1, served by the provider plugin pulumi-resource-platform.",
    keywords: ["pulumi", "platform", "iam", "registry", "vulnerabilities", "kind/native", "category/utility"],
    homepage: manifest.homepage,
    repository: manifest.repository.url,
    publisher: manifest.pulumiPackage.publisher,
    logoUrl: manifest.pulumiPackage.logoUrl,
    license: manifest.license,
    pluginDownloadURL: manifest.pulumiPackage.pluginDownloadURL,
    config: { variables: CONFIG_VARIABLES },
    provider: providerSection(),
    types: Object.fromEntries(Object.entries(registry.types).sort(([a], [b]) => a.localeCompare(b))),
    resources,
    functions,
    language: {
      nodejs: {
        packageName: "pulumi-platform-native",
        packageDescription: "Pulumi resources and data sources for the Platform Management API v2beta1.",
        dependencies: { "@pulumi/pulumi": `^${oldestPulumiVersion(manifest)}` },
        respectSchemaVersion: true,
      },
      go: {
        importBasePath: "github.com/pulumi-platform/native-sdks/go/platform",
        generateResourceContainerTypes: true,
        generateExtraInputTypes: true,
        respectSchemaVersion: true,
      },
      // The version pins the plugin version the SDK's resources ask the engine for (else 0.0.0).
      python: {
        packageName: "pulumi_platform_native",
        requires: { pulumi: `>=${oldestPulumiVersion(manifest)},<4.0.0` },
        respectSchemaVersion: true,
      },
      // Java packages com.pulumiplatform.platform(.iam, ...), Maven com.pulumiplatform:platform. No Gradle files:
      // scripts/gen-sdks.js writes the pom.xml, whose dependencies are these (the generated code links gson and
      // jsr305 itself; Pulumi's Java SDK publishes them at runtime scope only).
      java: {
        basePackage: JAVA_BASE_PACKAGE,
        buildFiles: "none",
        dependencies: {
          "com.pulumi:pulumi": PULUMI_JAVA_VERSION,
          "com.google.code.gson:gson": "2.10",
          "com.google.code.findbugs:jsr305": "3.0.2",
        },
      },
    },
  };
}

/** The text written to schema.json. */
export function renderPackageSchema(version: string = packageVersion()): string {
  return `${JSON.stringify(buildPackageSchema(version), null, 2)}\n`;
}

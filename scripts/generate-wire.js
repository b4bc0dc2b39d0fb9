#!/usr/bin/env node
/**
 * Writes sdk/schemas/openapi.generated.ts, the API's wire shapes as zod schemas, from the OpenAPI document kept in
 * the repository (spec/openapi-v2beta1.json):
 *
 *   - every `platform.*` object as a lenient response shape: each member optional, typed as the OpenAPI types it,
 *     described with its OpenAPI description; enum members read as plain strings (an enum may grow);
 *   - `<Object>Writable`: the members a client may send (not `readOnly`), the source of create and update bodies
 *     and of the update-mask paths;
 *   - `<Object>Required`: the members the OpenAPI lists as required;
 *   - every enum's values as `<Enum>Values`.
 *
 * Names: the component name without its `platform.<package>.<version>.` prefix, dots dropped
 * (`platform.iam.v2beta1.Identity.StaticKeys` is `IdentityStaticKeys`). The output depends on nothing but the
 * document: members and enum values keep the document's order, objects come after what they reference.
 * The product spec's own rules (bounds, name patterns, oneofs...) are not here: see sdk/rules.ts.
 *
 *   npm run wire                            # writes the file
 *   node scripts/generate-wire.js --check   # exits 1 if the file differs from what the document gives
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const SOURCE = "spec/openapi-v2beta1.json";
const TARGET = "sdk/schemas/openapi.generated.ts";

/**
 * Members listed first, in this order, where this kit's published package schema (schema.json, and so every SDK)
 * has always shown them; the others follow in document order (alphabetical, as protobuf's generator writes it).
 * Only presentation depends on it: a member missing here is still generated, described and sent.
 */
const SHOWN_FIRST = {
  "platform.iam.v2beta1.Identity": [
    "uid",
    "name",
    "description",
    "company",
    "claimMatch",
    "staticKeys",
    "awsIdentity",
    "servicePrincipal",
    "email",
    "emailUnverified",
    "lastSeenTime",
    "createTime",
    "updateTime",
  ],
  "platform.iam.v2beta1.Identity.ClaimMatch": [
    "issuer",
    "issuerPattern",
    "subject",
    "subjectPattern",
    "audience",
    "audiencePattern",
    "claims",
    "claimPatterns",
  ],
  "platform.iam.v2beta1.Identity.StaticKeys": [
    "issuer",
    "subject",
    "issuerKeys",
    "expirationTime",
    "audiences",
  ],
  "platform.iam.v2beta1.Identity.AWSIdentity": ["awsAccount", "arn", "arnPattern", "userId", "userIdPattern"],
  "platform.iam.v2beta1.Group": [
    "uid",
    "name",
    "description",
    "resourceLimits",
    "verified",
    "kind",
    "status",
    "createTime",
    "updateTime",
  ],
  "platform.iam.v2beta1.Role": ["uid", "name", "description", "capabilities", "createTime", "updateTime"],
  "platform.iam.v2beta1.IdentityProvider": [
    "uid",
    "name",
    "description",
    "defaultRole",
    "oidc",
    "createTime",
    "updateTime",
  ],
  "platform.iam.v2beta1.IdentityProvider.OIDC": [
    "issuer",
    "clientId",
    "clientSecret",
    "additionalScopes",
    "groupsClaim",
    "pkceEnabled",
  ],
  "platform.registry.v2beta1.Repo": [
    "uid",
    "name",
    "description",
    "aliases",
    "bundles",
    "activeTags",
    "catalogTier",
    "createTime",
    "updateTime",
  ],
  "platform.registry.v2beta1.Tag": ["uid", "name", "digest", "deprecated", "bundles", "updateTime"],
  "platform.vulnerabilities.v2beta1.Advisory": [
    "uid",
    "advisoryId",
    "legacyAdvisoryId",
    "aliases",
    "author",
    "artifactName",
    "artifactType",
    "artifactArchitecture",
    "componentName",
    "componentType",
    "componentLocation",
    "severities",
    "events",
    "createTime",
    "updateTime",
    "deleteTime",
  ],
  "platform.vulnerabilities.v2beta1.Severity": ["type", "score"],
  "platform.vulnerabilities.v2beta1.AdvisoryEvent": ["author", "reviewState", "createTime"],
};

/** An object's members: those shown first, then the rest in document order. */
function membersOf(component, schema) {
  const entries = Object.entries(schema.properties ?? {});
  const first = SHOWN_FIRST[component] ?? [];
  const rank = (member) => (first.includes(member) ? first.indexOf(member) : first.length);
  return entries
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => rank(a.entry[0]) - rank(b.entry[0]) || a.index - b.index)
    .map(({ entry }) => entry);
}

/** The TypeScript name of a component, or undefined for one the wire does not use (google.*). */
function tsName(component) {
  const segments = component.split(".");
  if (segments[0] !== "platform") return undefined;
  const rest = segments.slice(1);
  // platform.<package>.<version>.<Name...> or platform.<package>.<Name...> (capabilities, oidc).
  const start = /^v\d/.test(rest[1] ?? "") ? 2 : 1;
  return rest.slice(start).join("");
}

function refName(ref) {
  const component = ref.replace("#/components/schemas/", "");
  const name = tsName(component);
  if (name === undefined) throw new Error(`${SOURCE}: unsupported reference ${ref}`);
  return { component, name };
}

/** The one $ref a property stands for (`$ref`, or an `allOf` of one, as protobuf's generator writes it). */
function referenceOf(property) {
  if (property.$ref) return property.$ref;
  if (Array.isArray(property.allOf) && property.allOf.length === 1 && property.allOf[0].$ref)
    return property.allOf[0].$ref;
  return undefined;
}

function isEnum(schema) {
  return Array.isArray(schema.enum);
}

function render(document) {
  const schemas = document.components.schemas;
  const names = new Map();
  for (const component of Object.keys(schemas)) {
    const name = tsName(component);
    if (name === undefined) continue;
    if ([...names.values()].includes(name)) throw new Error(`${SOURCE}: two components named ${name}`);
    names.set(component, name);
  }

  const zodOf = (property, dependencies) => {
    const ref = referenceOf(property);
    if (ref !== undefined) {
      const { component, name } = refName(ref);
      const target = schemas[component];
      if (isEnum(target)) return "z.string()";
      dependencies.add(component);
      return name;
    }
    switch (property.type) {
      case "string":
        return "z.string()";
      case "integer":
        return "z.number().int()";
      case "number":
        return "z.number()";
      case "boolean":
        return "z.boolean()";
      case "array":
        return `z.array(${zodOf(property.items ?? {}, dependencies)})`;
      case "object":
        if (property.additionalProperties && typeof property.additionalProperties === "object")
          return `z.record(z.string(), ${zodOf(property.additionalProperties, dependencies)})`;
        if (property.properties) throw new Error(`${SOURCE}: inline object members are not supported`);
        return "z.record(z.string(), z.unknown())";
      default:
        return "z.unknown()";
    }
  };

  const doc = (text) => JSON.stringify(text.trim());
  const comment = (text) => text.trim().replace(/\*\//g, "*\\/").split("\n");

  const blocks = new Map();
  const dependenciesOf = new Map();
  for (const [component, name] of names) {
    const schema = schemas[component];
    const lines = [];
    // The first paragraph: enum descriptions go on to list every value, which the values themselves show.
    const summary = comment((schema.description ?? schema.title ?? name).split("\n\n")[0]);
    lines.push("/**", ...summary.map((l) => ` * ${l}`.trimEnd()), ` *`, ` * OpenAPI ${component}.`, " */");
    if (isEnum(schema)) {
      lines.push(`export const ${name}Values = ${JSON.stringify(schema.enum)} as const;`);
      blocks.set(component, lines);
      dependenciesOf.set(component, new Set());
      continue;
    }
    const dependencies = new Set();
    const properties = membersOf(component, schema);
    lines.push(`export const ${name} = z.object({`);
    for (const [member, property] of properties) {
      const key = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(member) ? member : JSON.stringify(member);
      const text = property.description ?? property.title;
      const described = text ? `.describe(${doc(text)})` : "";
      lines.push(`  ${key}: ${zodOf(property, dependencies)}${described}.optional(),`);
    }
    lines.push("});");
    if (properties.some(([, p]) => p.readOnly === true)) {
      const writable = properties.filter(([, p]) => p.readOnly !== true).map(([m]) => m);
      lines.push(`export const ${name}Writable = ${JSON.stringify(writable)} as const;`);
    }
    if (Array.isArray(schema.required) && schema.required.length > 0)
      lines.push(`export const ${name}Required = ${JSON.stringify(schema.required)} as const;`);
    blocks.set(component, lines);
    dependenciesOf.set(component, dependencies);
  }

  // Document order, each object after what it references.
  const ordered = [];
  const done = new Set();
  const visit = (component, trail) => {
    if (done.has(component)) return;
    if (trail.includes(component)) throw new Error(`${SOURCE}: ${component} references itself`);
    for (const dependency of dependenciesOf.get(component)) visit(dependency, [...trail, component]);
    done.add(component);
    ordered.push(component);
  };
  for (const component of names.keys()) visit(component, []);

  const header = [
    `// Generated by scripts/generate-wire.js from ${SOURCE}: do not edit, run \`npm run wire\`.`,
    "/**",
    " * The API's wire shapes as its OpenAPI document gives them. Response shapes are lenient: every member is",
    " * optional and unknown members are dropped, so additive API changes break nobody. The hand-written modules",
    " * beside this one compose these shapes with the product spec's rules (../rules.ts).",
    " */",
    'import { z } from "zod";',
    "",
  ];
  return [
    ...header,
    ...ordered
      .map((c) => blocks.get(c).join("\n"))
      .join("\n\n")
      .split("\n"),
    "",
  ].join("\n");
}

/** The OpenAPI document kept in the repository. */
function readDocument() {
  return JSON.parse(fs.readFileSync(path.join(root, SOURCE), "utf8"));
}

/**
 * The file's text for `document` (by default the repository's): rendered, then laid out by the repository's
 * prettier settings (deterministic for the pinned prettier version).
 */
async function generate(document = readDocument()) {
  const prettier = require("prettier");
  const target = path.join(root, TARGET);
  const options = (await prettier.resolveConfig(target)) ?? {};
  return prettier.format(render(document), { ...options, filepath: target });
}

async function main() {
  const text = await generate();
  const target = path.join(root, TARGET);
  if (process.argv.includes("--check")) {
    const current = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : "";
    if (current !== text) {
      console.error(`${TARGET} is out of date with ${SOURCE}: run \`npm run wire\`.`);
      process.exit(1);
    }
    console.log(`${TARGET} is up to date.`);
    return;
  }
  fs.writeFileSync(target, text);
  console.log(`wrote ${TARGET} from ${SOURCE}`);
}

/** What this generator writes, relative to the repository. */
const outputs = () => [TARGET];

module.exports = { generate, readDocument, SOURCE, TARGET, outputs };
if (require.main === module)
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });

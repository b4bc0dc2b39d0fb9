#!/usr/bin/env node
/**
 * Writes the program side of every resource from its declaration (provider/catalogue, and the types schema.json
 * carries for it), so a resource is its declaration (with its page, <stem>.md) and its implementation:
 *   - provider/<module>/resources.generated.ts: each resource's class, its Args, and the Args of the object types its inputs
 *     take (e.g. ClaimMatchArgs), all derived from ../types.generated;
 *   - provider/<module>/<stem>.provider.ts: the provider object the class hands to Pulumi, a lazy front over
 *     ./<stem>.implementation (../core/lazy-provider). Its path is what a stack's state stores (`require()` of
 *     `pulumi-platform/dist/provider/<module>/<stem>.provider.js`), so it stays where every release put it: the
 *     states written by 0.1.0 and 0.2.0 refresh and destroy through it;
 *   - provider/<module>/data-sources.generated.ts: each data source's getX / getXOutput pair, which loads its implementation
 *     (./get-x.implementation) on the first call.
 * So a data source, too, is its declaration and implementation (./get-x.implementation) and nothing else by hand.
 *
 *   node scripts/generate-classes.js           # writes them
 *   node scripts/generate-classes.js --check   # exits 1 if any differs from what it would write
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const prettier = require("prettier");
const { loadProviderModule } = require("./provider-module");

const root = path.resolve(__dirname, "..");

/**
 * Names given by hand where the rule (the schema's type name without the resource's name) gives another: the ones the
 * hand-written classes published before they were generated (kept so that programs using them compile), and the
 * ones the rule would give two types.
 */
const PUBLISHED_NAMES = {
  "platform:iam:AccountAssociationGithub": "GitHub",
  // Both access resources hold a list of bindings: the rule would name both item types BindingsItem.
  "platform:iam:GroupAccessBindingsItem": "GroupAccessBinding",
  "platform:iam:IdentityAccessBindingsItem": "IdentityAccessBinding",
};

const typeName = (token) => token.split(":")[2];

/** The object types a resource's inputs take, in the order its inputs name them. */
function nestedTypes(schema, token) {
  const seen = [];
  const walk = (spec) => {
    if (spec === undefined) return;
    if (spec.$ref?.startsWith("#/types/")) {
      const type = spec.$ref.slice("#/types/".length);
      if (seen.includes(type)) return;
      seen.push(type);
      for (const property of Object.values(schema.types[type].properties)) walk(property);
    }
    walk(spec.items);
    walk(spec.additionalProperties);
  };
  for (const property of Object.values(schema.resources[token].inputProperties)) walk(property);
  return seen;
}

/** The short name of a resource's object type: IdentityStaticKeys -> StaticKeys, ClaimMatch -> ClaimMatch. */
function shortName(resource, type) {
  if (PUBLISHED_NAMES[type] !== undefined) return PUBLISHED_NAMES[type];
  const name = typeName(type);
  return name.startsWith(resource) && name.length > resource.length ? name.slice(resource.length) : name;
}

const sentence = (text) => text.replace(/\*\//g, "*\\/");

function classSource(d, schema, names) {
  const typeImports = [`${d.name}Inputs`, `${d.name}State`];
  const aliases = [];
  for (const type of nestedTypes(schema, d.token)) {
    const full = typeName(type);
    const short = shortName(d.name, type);
    for (const name of [short, `${short}Args`]) {
      if (names.has(name)) throw new Error(`${d.token}: ${name} is already exported by ${names.get(name)}`);
      names.set(name, d.token);
    }
    typeImports.push(full);
    const description = schema.types[type].description;
    if (short === full) aliases.push(`export type { ${full} };`);
    else
      aliases.push(
        `${description ? `/** ${sentence(description)} */\n` : ""}export type ${short} = ${full};`,
      );
    aliases.push(`export type ${short}Args = ArgsOf<${full}>;`);
  }
  const objectKeys = Object.entries(schema.resources[d.token].inputProperties)
    .filter(([, spec]) => spec.$ref?.startsWith("#/types/"))
    .map(([key]) => key);
  if (objectKeys.length > 0) {
    aliases.push(
      `/** The resolved object-typed properties, as the outputs carry them. */\nexport type ${d.name}Blocks = Pick<${d.name}State, ${objectKeys.map((k) => JSON.stringify(k)).join(" | ")}>;`,
    );
  }
  const unread =
    d.writeOnly.length === 0
      ? ""
      : ` ${d.writeOnly.map((k) => `\`${k}\``).join(", ")} cannot be read back: ${d.writeOnly.length === 1 ? "it stays" : "they stay"} unknown.`;
  return {
    imports: typeImports,
    provider: `import ${camel(d.name)}Provider = require("./${d.stem}.provider");`,
    text: `
// ---- ${d.token} (./${d.stem}.declaration, ./${d.stem}.implementation) ----

${aliases.join("\n")}

export type ${d.name}Args = ArgsOf<${d.name}Inputs>;

// The outputs are declared by merging this interface into the class (the engine sets them at run time).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface ${d.name} extends OutputsOf<${d.name}State> {}

/** platform.${d.module}.${d.name}: ${sentence(d.summary)} */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class ${d.name} extends pulumi.CustomResource {
  /** The uid the service assigned: the resource's id (see uidOf). */
  public readonly uid: pulumi.Output<string>;

  constructor(name: string, args: ${d.name}Args, opts?: pulumi.CustomResourceOptions) {
    super(...dynamicResource("${d.name}", name, ${camel(d.name)}Provider, args, opts));
    this.uid = uidOf(this);
  }

  /** Reads an existing ${d.name} by ${sentence(d.importId)} into the program (calls the provider's \`read\`).${unread} */
  public static get(
    name: string,
    uid: pulumi.Input<string>,
    opts?: pulumi.CustomResourceOptions,
    state?: { profile?: pulumi.Input<string> },
  ): ${d.name} {
    return new ${d.name}(name, { profile: state?.profile } as ${d.name}Args, { ...opts, id: uid });
  }
}
`,
  };
}

const camel = (name) => name[0].toLowerCase() + name.slice(1);

function resourcesModule(module, declarations, schema) {
  const names = new Map();
  const parts = declarations.map((d) => classSource(d, schema, names));
  return `/**
 * The resource classes of platform.${module}, GENERATED by scripts/generate-classes.js from their declarations (do not
 * edit; \`npm run generate\` rewrites it, a test fails when it drifts). Each class only binds the Args, outputs and
 * properties derived from its declaration (through ../types.generated) to its provider (./<stem>.provider).
 */
import * as pulumi from "@pulumi/pulumi";
import { dynamicResource, uidOf, type ArgsOf, type OutputsOf } from "../core/resource-class";
import type { ${parts.flatMap((p) => p.imports).join(", ")} } from "../types.generated";
${parts.map((p) => p.provider).join("\n")}
${parts.map((p) => p.text).join("")}`;
}

function providerModule(d) {
  return `/**
 * The dynamic provider of platform.${d.module}.${d.name}, GENERATED by scripts/generate-classes.js (do not edit). It is
 * exported as the WHOLE module, so the stack stores a one-line \`require()\` of the installed package, and loading its
 * implementation (./${d.stem}.implementation, with zod, the SDK and undici) waits for the first call, in the
 * provider process.
 */
import { lazyProvider } from "../core/lazy-provider";

export = lazyProvider(
  __filename,
  () => require("./${d.stem}.implementation") as typeof import("./${d.stem}.implementation"),
);
`;
}

/** One data source's pair: the function loads its implementation on the first call; the Output form wraps it. */
function dataSourceSource(d) {
  const [, module, name] = d.token.split(":");
  const stem = name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  const type = name[0].toUpperCase() + name.slice(1);
  // Arguments that may all be left out make the argument optional: `getRoles()`.
  const args = d.args.safeParse({}).success ? `args: ${type}Args = {}` : `args: ${type}Args`;
  return {
    types: [`${type}Args`, `${type}Result`],
    text: `
/** platform.${module}.${name}: ${sentence(d.summary)} */
export async function ${name}(${args}, opts?: pulumi.InvokeOptions): Promise<${type}Result> {
  const implementation = require("./${stem}.implementation") as typeof import("./${stem}.implementation");
  return implementation.${name}(args, opts);
}

/** The Output form of ${name}: its arguments may be Outputs, its result is one. */
export const ${name}Output = outputForm(${name});
`,
  };
}

function dataSourcesModule(module, declarations) {
  const parts = declarations.map(dataSourceSource);
  const types = parts.flatMap((p) => p.types);
  return `/**
 * The data sources of platform.${module}, GENERATED by scripts/generate-classes.js from their declarations (do not
 * edit; \`npm run generate\` rewrites it, a test fails when it drifts). Each function loads its implementation
 * (./get-<name>.implementation: zod, the SDK, undici) on its first call, so a program that does not call it never
 * loads them.
 */
import type * as pulumi from "@pulumi/pulumi";
import { outputForm } from "../core/output-form";
import type { ${types.join(", ")} } from "../types.generated";

export type { ${types.join(", ")} };
${parts.map((p) => p.text).join("")}`;
}

/** Every file this generator writes, path relative to the repository -> text before formatting. */
function files() {
  const schema = loadProviderModule("schema").buildPackageSchema();
  const { RESOURCES, DATA_SOURCES } = loadProviderModule("catalogue");
  const byModule = new Map();
  const out = new Map();
  for (const { declaration: d } of RESOURCES) {
    byModule.set(d.module, [...(byModule.get(d.module) ?? []), d]);
    out.set(path.join("provider", d.module, `${d.stem}.provider.ts`), providerModule(d));
  }
  for (const [module, declarations] of byModule) {
    out.set(
      path.join("provider", module, "resources.generated.ts"),
      resourcesModule(module, declarations, schema),
    );
  }
  const sourcesByModule = new Map();
  for (const d of DATA_SOURCES) {
    const module = d.token.split(":")[1];
    sourcesByModule.set(module, [...(sourcesByModule.get(module) ?? []), d]);
  }
  for (const [module, declarations] of sourcesByModule) {
    out.set(
      path.join("provider", module, "data-sources.generated.ts"),
      dataSourcesModule(module, declarations),
    );
  }
  return out;
}

async function main() {
  const stale = [];
  for (const [relative, text] of files()) {
    const target = path.join(root, relative);
    const config = (await prettier.resolveConfig(target)) ?? {};
    const formatted = await prettier.format(text, { ...config, parser: "typescript" });
    const current = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : "";
    if (current === formatted) continue;
    if (process.argv.includes("--check")) stale.push(relative);
    else {
      fs.writeFileSync(target, formatted);
      console.log(`wrote ${relative}`);
    }
  }
  if (stale.length > 0) {
    console.error(`out of date: ${stale.join(", ")}; run \`npm run generate\``);
    process.exit(1);
  }
}

/** What this generator writes, relative to the repository. */
const outputs = () => [...files().keys()];

if (require.main === module)
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });

module.exports = { outputs };

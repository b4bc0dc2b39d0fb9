#!/usr/bin/env node
/**
 * Writes provider/types.generated.ts, the plain TypeScript a program compiles against, so each type is described once:
 *   - each resource's inputs and state, with their nested object types and every doc sentence, from its
 *     declaration as schema.json carries it (provider/catalogue, provider/schema), and the properties its outputs
 *     carry and keep secret (the classes under provider/<module>/ derive their Args, outputs and keys from these);
 *   - the data sources' argument and result types, expanded by the TypeScript checker from the zod schemas the
 *     data sources validate with (z.infer).
 *
 * Why: a user's program compiles our public .d.ts files with its own settings. zod's own declarations do not
 * compile without esModuleInterop and skipLibCheck (the `pulumi new typescript` tsconfig has neither), so no public
 * declaration may reach zod. The schemas themselves are marked @internal and stripped from the .d.ts files.
 *
 *   node scripts/generate-types.js           # writes provider/types.generated.ts
 *   node scripts/generate-types.js --check   # exits 1 if provider/types.generated.ts differs from the schemas
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const ts = require("typescript");
const prettier = require("prettier");
const { loadProviderModule } = require("./provider-module");

const root = path.resolve(__dirname, "..");
const target = path.join(root, "provider", "types.generated.ts");

/** Each data source's module (under provider/) and its schemas' stem: getRole -> iam/get-role, GetRole. */
function dataSourceModules() {
  return loadProviderModule("catalogue").DATA_SOURCES.map(({ token }) => {
    const [, module, name] = token.split(":");
    return [
      `${module}/${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
      name[0].toUpperCase() + name.slice(1),
    ];
  });
}

function jsdoc(text, indent = "") {
  return text ? `${indent}/** ${text.replace(/\*\//g, "*\\/")} */\n` : "";
}

/** The schema's name of an object type, without its package and module: platform:iam:ClaimMatch -> ClaimMatch. */
const typeName = (ref) => ref.replace(/^#\/types\//, "").split(":")[2];

/** A schema property's TypeScript type; the object types it refers to are added to `needed`. */
function tsType(spec, needed) {
  if (spec.$ref !== undefined) {
    if (spec.$ref === "pulumi.json#/Any") return "unknown";
    needed.add(spec.$ref.replace(/^#\/types\//, ""));
    return typeName(spec.$ref);
  }
  switch (spec.type) {
    case "string":
      return "string";
    case "boolean":
      return "boolean";
    case "integer":
    case "number":
      return "number";
    case "array":
      return `${tsType(spec.items, needed)}[]`;
    case "object":
      return `Record<string, ${tsType(spec.additionalProperties, needed)}>`;
    default:
      return "unknown";
  }
}

function members(properties, optional, needed) {
  return Object.entries(properties)
    .map(
      ([key, spec]) =>
        `${jsdoc(spec.description, "  ")}  ${key}${optional(key) ? "?" : ""}: ${tsType(spec, needed)};`,
    )
    .join("\n");
}

/** Each resource's inputs, state and nested types, and the runtime table the classes read. */
function resourceTypes() {
  const schema = loadProviderModule("schema").buildPackageSchema();
  const { RESOURCES } = loadProviderModule("catalogue");
  const out = [];
  const needed = new Set();
  const table = {};
  for (const { declaration: d } of RESOURCES) {
    const spec = schema.resources[d.token];
    const required = new Set(spec.requiredInputs);
    out.push(
      `${jsdoc(`The inputs of ${d.token}, resolved. ${d.summary}`)}export interface ${d.name}Inputs {\n${members(spec.inputProperties, (k) => !required.has(k), needed)}\n}`,
    );
    // Always present in the state: what the service sets, a required input it returns, a field with a default.
    const present = (key) =>
      key in d.outputs ||
      (required.has(key) && !d.writeOnly.includes(key)) ||
      d.inputs[key]?.default !== undefined;
    const state = Object.fromEntries(
      d.properties.filter((k) => k !== "uid").map((k) => [k, spec.properties[k]]),
    );
    out.push(
      `${jsdoc(`The state of ${d.token} (the resource's outputs; its uid is its id).`)}export interface ${d.name}State {\n${members(state, (k) => !present(k), needed)}\n}`,
    );
    table[d.name] = { type: `${d.module}:${d.name}`, outputs: Object.keys(state), secrets: d.secrets };
  }
  const done = new Set();
  while ([...needed].some((t) => !done.has(t))) {
    for (const token of [...needed].sort()) {
      if (done.has(token)) continue;
      done.add(token);
      const type = schema.types[token];
      const required = new Set(type.required ?? []);
      out.push(
        `${jsdoc(type.description)}export interface ${typeName(token)} {\n${members(type.properties, (k) => !required.has(k), needed)}\n}`,
      );
    }
  }
  out.push(
    `${jsdoc("Per resource class: its dynamic type (module:Type), the properties its outputs carry (every one but uid, which is the id) and those always kept secret.")}export const RESOURCE_PROPERTIES = ${JSON.stringify(table)} as const;`,
  );
  return out;
}

function expandedTypes() {
  const probe = path.join(root, "provider", "__types-probe.ts");
  const lines = ['import type { z } from "zod";'];
  for (const [module, stem] of dataSourceModules()) {
    lines.push(`import type { ${stem}ArgsSchema, ${stem}ResultSchema } from "./${module}.implementation";`);
    lines.push(`export type ${stem}Args = z.infer<typeof ${stem}ArgsSchema>;`);
    lines.push(`export type ${stem}Result = z.infer<typeof ${stem}ResultSchema>;`);
  }
  const source = lines.join("\n");
  const options = {
    strict: true,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    target: ts.ScriptTarget.ES2022,
    esModuleInterop: true,
    skipLibCheck: true,
    noEmit: true,
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (f) => (path.resolve(f) === probe ? source : readFile(f));
  host.fileExists = (f) => path.resolve(f) === probe || fileExists(f);
  const program = ts.createProgram([probe], options, host);
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(probe);
  const flags =
    ts.TypeFormatFlags.NoTruncation |
    ts.TypeFormatFlags.InTypeAlias |
    ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType;
  const out = [];
  for (const statement of file.statements) {
    if (!ts.isTypeAliasDeclaration(statement)) continue;
    const type = checker.getTypeAtLocation(statement.name);
    const text = checker.typeToString(type, statement, flags);
    if (/\bz\.|zod|import\(/.test(text)) throw new Error(`${statement.name.text} did not expand: ${text}`);
    out.push(`export type ${statement.name.text} = ${text};`);
  }
  return out;
}

async function main() {
  const header = [
    "/**",
    " * The resources' and data sources' types, GENERATED by scripts/generate-types.js from their declarations (do",
    " * not edit; `npm run generate` rewrites it, a test fails when it drifts). Plain types, so a program's compiler",
    " * never has to read zod's declarations.",
    " */",
  ].join("\n");
  const text = `${header}\n${[...resourceTypes(), ...expandedTypes()].join("\n\n")}\n`;
  const config = (await prettier.resolveConfig(target)) ?? {};
  const formatted = await prettier.format(text, { ...config, parser: "typescript" });
  if (process.argv.includes("--check")) {
    const current = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : "";
    if (current !== formatted) {
      console.error("provider/types.generated.ts is out of date: run `npm run generate`");
      process.exit(1);
    }
    return;
  }
  fs.writeFileSync(target, formatted);
  console.log(`wrote ${path.relative(root, target)}`);
}

/** What this generator writes, relative to the repository. */
const outputs = () => [path.relative(root, target)];

if (require.main === module)
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });

module.exports = { outputs };

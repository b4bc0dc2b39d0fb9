/**
 * Each resource and data source is declared once (provider/catalogue). This test fails when any copy of what a
 * declaration says (a summary, a field's doc, a secret flag, a replace flag, a field list) differs in what is
 * derived from it and committed or served: schema.json, the generated TypeScript and Go SDKs, the classes'
 * generated types and registered properties, the program-side module exports, the plugin's tables and the README.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { DATA_SOURCES, RESOURCES } from "../../provider/catalogue";
import { RESOURCE_PROPERTIES } from "../../provider/types.generated";
import { RESOURCES as PLUGIN_RESOURCES } from "../../plugin/resources";
import { DATA_SOURCES as PLUGIN_DATA_SOURCES } from "../../plugin/data-sources";
import * as platform from "../../provider";
import { z } from "zod";
import { nestedInput } from "../../provider/core/declaration";
import {
  AwsIdentityInputSchema,
  ClaimMatchInputSchema,
  StaticKeysInputSchema,
} from "../../provider/iam/identity.declaration";
import { AwsIdentity, ClaimMatch, StaticKeys } from "../../sdk/schemas/identities";
import * as wire from "../../sdk/schemas/openapi.generated";
import {
  AmazonInputSchema,
  AzureInputSchema,
  ChainguardInputSchema,
  GitHubInputSchema,
  GoogleInputSchema,
} from "../../provider/iam/account-association.declaration";
const { GENERATORS } = require("../../scripts/generate.js") as {
  GENERATORS: { name: string; script: string; writes: string; engine?: boolean }[];
};

const root = path.resolve(__dirname, "..", "..");

interface SchemaProperty {
  description?: string;
  secret?: boolean;
  willReplaceOnChanges?: boolean;
}
interface SchemaResource {
  description: string;
  inputProperties: Record<string, SchemaProperty>;
  properties: Record<string, SchemaProperty>;
}
const schema = JSON.parse(fs.readFileSync(path.join(root, "schema.json"), "utf8")) as {
  resources: Record<string, SchemaResource>;
  functions: Record<string, { description: string }>;
};

/** A generated source's comments and code with comment markers and line breaks folded away. */
function folded(file: string): string {
  return fs
    .readFileSync(file, "utf8")
    .replace(/^\s*(\/\/|\*|\/\*\*)\s?/gm, "")
    .replace(/\s+/g, " ");
}

const lowerFirst = (name: string) => name[0]!.toLowerCase() + name.slice(1);

describe.each(RESOURCES.map((r) => [r.declaration.token, r.declaration] as const))("%s", (_token, d) => {
  const spec = schema.resources[d.token]!;

  it("schema.json has its summary, each field's doc, and exactly its secret and replace flags", () => {
    expect(spec.description).toBe(d.summary);
    // `adopt` only where the resource declares it (test/provider/adopt.test.ts).
    const adopt = Object.hasOwn(d.inputs, "adopt") ? ["adopt"] : [];
    expect(Object.keys(spec.inputProperties)).toEqual([...d.apiInputs, "profile", ...adopt]);
    for (const key of d.apiInputs) {
      const field = d.inputs[key]!;
      expect([key, spec.inputProperties[key]!.description]).toEqual([key, field.doc]);
      expect([key, spec.inputProperties[key]!.willReplaceOnChanges === true]).toEqual([
        key,
        field.replaces === true,
      ]);
    }
    for (const [key, field] of Object.entries(d.outputs))
      expect([key, spec.properties[key]!.description]).toEqual([key, field.doc]);
    const secret = Object.keys(spec.properties).filter((key) => spec.properties[key]!.secret === true);
    expect(secret.sort()).toEqual([...d.secrets].sort());
    for (const key of d.writeOnly) expect(d.secrets).toContain(key); // a write-only input is a secret one
  });

  it("the generated TypeScript and Go SDKs carry the same docs and secrets", () => {
    const ts = folded(path.join(root, "native-sdks", "nodejs", d.module, `${lowerFirst(d.name)}.ts`));
    const go = folded(path.join(root, "native-sdks", "go", "platform", d.module, `${lowerFirst(d.name)}.go`));
    for (const text of [d.summary, ...d.apiInputs.map((key) => d.inputs[key]!.doc)]) {
      expect(ts).toContain(text.replace(/\s+/g, " "));
      expect(go).toContain(text.replace(/\s+/g, " "));
    }
    const secretOutputs = /additionalSecretOutputs: \[([^\]]*)\]/.exec(ts)?.[1] ?? "";
    expect(secretOutputs.match(/"[^"]+"/g)?.map((s) => JSON.parse(s) as string) ?? []).toEqual(
      d.secrets.filter((key) => key in spec.properties),
    );
  });

  it("the class registers every property but the uid and keeps the declared secrets", () => {
    const table = RESOURCE_PROPERTIES[d.name as keyof typeof RESOURCE_PROPERTIES];
    expect(table.type).toBe(`${d.module}:${d.name}`);
    expect([...table.outputs]).toEqual(d.properties.filter((key) => key !== "uid"));
    expect([...table.secrets]).toEqual([...d.secrets]);
    const module = (platform as unknown as Record<string, Record<string, unknown>>)[d.module]!;
    expect(typeof module[d.name]).toBe("function");
  });

  it("the plugin serves it with the same declaration", () => {
    expect(PLUGIN_RESOURCES.get(d.token)?.declaration).toBe(d);
  });
});

describe("data sources", () => {
  it("schema.json, the plugin and the program-side modules serve exactly the catalogue's", () => {
    expect(Object.keys(schema.functions).sort()).toEqual(DATA_SOURCES.map((f) => f.token).sort());
    expect([...PLUGIN_DATA_SOURCES.keys()].sort()).toEqual(DATA_SOURCES.map((f) => f.token).sort());
    for (const { token, summary } of DATA_SOURCES) {
      expect([token, schema.functions[token]!.description]).toEqual([token, summary]);
      const [, module, name] = token.split(":") as [string, string, string];
      const exports = (platform as unknown as Record<string, Record<string, unknown>>)[module]!;
      expect([token, typeof exports[name], typeof exports[`${name}Output`]]).toEqual([
        token,
        "function",
        "function",
      ]);
    }
  });

  it("the resources the plugin serves are exactly the catalogue's", () => {
    expect([...PLUGIN_RESOURCES.keys()]).toEqual(RESOURCES.map((r) => r.declaration.token));
    expect(Object.keys(schema.resources)).toEqual(RESOURCES.map((r) => r.declaration.token));
  });
});

describe("generated files", () => {
  // Every generator that needs no engine; the SDKs' check runs in test/e2e/native-sdks.e2e.test.ts.
  it.each(GENERATORS.filter((g) => !g.engine).map((g) => [g.writes, g.name]))(
    "%s matches the declarations (generate --check --only %s)",
    (_what, name) => {
      expect(() =>
        execFileSync("node", [path.join(root, "scripts", "generate.js"), "--check", "--only", name], {
          stdio: "pipe",
        }),
      ).not.toThrow();
    },
  );

  it("every generator script is in the one ordered list, and every package script that runs one", () => {
    const scripts = fs.readdirSync(path.join(root, "scripts")).filter((f) => /^gen(erate)?-.*\.js$/.test(f));
    expect(scripts.sort()).toEqual(GENERATORS.map((g) => g.script).sort());
    const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    for (const { name, script } of GENERATORS)
      expect([name, manifest.scripts[name]]).toEqual([name, `node scripts/${script}`]);
    expect(manifest.scripts["generate"]).toBe("node scripts/generate.js");
  });

  it("refuses a generator it does not know, naming the ones it does", () => {
    let failure: { status?: number; stderr?: Buffer } = {};
    try {
      execFileSync("node", [path.join(root, "scripts", "generate.js"), "--check", "--only", "nope"], {
        stdio: "pipe",
      });
    } catch (error) {
      failure = error as typeof failure;
    }
    expect(failure.status).toBe(2);
    expect(String(failure.stderr)).toContain(GENERATORS.map((g) => g.name).join(", "));
  });
});

describe("nested input blocks are derived from the wire shapes", () => {
  test.each([
    ["claimMatch", ClaimMatchInputSchema, ClaimMatch],
    ["staticKeys", StaticKeysInputSchema, StaticKeys],
    ["awsIdentity", AwsIdentityInputSchema, AwsIdentity],
    ["amazon", AmazonInputSchema, wire.AccountAssociationAmazon],
    ["azure", AzureInputSchema, wire.AccountAssociationAzure],
    ["google", GoogleInputSchema, wire.AccountAssociationGoogle],
    ["chainguard", ChainguardInputSchema, wire.AccountAssociationChainguard],
    ["github", GitHubInputSchema, wire.AccountAssociationGitHub],
  ] as const)("%s has exactly the wire's members, each documented", (_name, declared, wire) => {
    expect(Object.keys(declared.shape).sort()).toEqual(Object.keys(wire.shape).sort());
    for (const member of Object.values(declared.shape))
      expect(member.description).toEqual(expect.any(String));
  });

  test("nestedInput takes the wire's members and types, the declaration's docs, rules and required ones", () => {
    const wire = z.object({
      a: z.string().describe("wire a").optional(),
      b: z.array(z.string()).optional(),
      n: z.number().optional(),
    });
    const block = nestedInput(wire, {
      a: { doc: "declared a", rule: (s) => s.min(2, "a is short"), required: true },
      b: { doc: "declared b" },
      n: { doc: "declared n" },
    });
    expect(Object.keys(block.shape)).toEqual(["a", "b", "n"]);
    expect(block.shape.a.description).toBe("declared a");
    expect(block.safeParse({ a: "xy", b: ["1"], n: 3 }).success).toBe(true);
    expect(block.safeParse({ b: [] }).success).toBe(false); // a is required here
    expect(block.safeParse({ a: "x" }).error?.issues[0]?.message).toBe("a is short");
    expect(block.safeParse({ a: "xy", n: "3" }).success).toBe(false); // the wire's type
  });
});

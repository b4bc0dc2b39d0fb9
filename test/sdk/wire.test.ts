/**
 * The wire layer comes from the OpenAPI document in the repository (spec/openapi-v2beta1.json): the generated file
 * is what the document gives, a member added to the document reaches the wire shapes, the request bodies and the
 * update masks with nothing else edited, and the spec's rules (sdk/rules.ts) are the ones every side uses.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as fc from "fast-check";
import * as ts from "typescript";
import { z } from "zod";
import * as schemas from "../../sdk/schemas";
import * as wire from "../../sdk/schemas/openapi.generated";
import { IDENTITY_KINDS, NOT_CLIENT_SETTABLE, privateKeyIndex, privateKeyProblem } from "../../sdk/rules";
import { IDENTITY_KINDS as DECLARED_KINDS } from "../../provider/iam/identity.declaration";
import { buildPackageSchema } from "../../provider/schema";

const root = path.resolve(__dirname, "../..");
const GENERATOR = path.join(root, "scripts", "generate-wire.js");

/** The generator's text for `document`, in a node process of its own (prettier 3 loads itself dynamically). */
function generate(document: OpenApi): string {
  const script = `require(${JSON.stringify(GENERATOR)}).generate(JSON.parse(require("node:fs").readFileSync(0, "utf8"))).then((t) => process.stdout.write(t))`;
  return execFileSync("node", ["-e", script], { input: JSON.stringify(document), encoding: "utf8" });
}

function readDocument(): OpenApi {
  return JSON.parse(fs.readFileSync(path.join(root, "spec", "openapi-v2beta1.json"), "utf8")) as OpenApi;
}

interface OpenApi {
  components: { schemas: Record<string, { properties?: Record<string, { readOnly?: boolean }> }> };
}

/** The generated module for `document`, compiled and loaded, as the SDK would see it. */
function generatedFor(document: OpenApi): Record<string, unknown> {
  const source = generate(document);
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS } }).outputText;
  const module = { exports: {} as Record<string, unknown> };
  new Function("require", "module", "exports", js)(
    (id: string) => (id === "zod" ? { z } : require(id)),
    module,
    module.exports,
  );
  return module.exports;
}

const IDENTITY = "platform.iam.v2beta1.Identity";

describe("the generated wire file", () => {
  it("is what the OpenAPI document gives (run `npm run wire` after editing the document)", () => {
    expect(execFileSync("node", [GENERATOR, "--check"], { stdio: "pipe", encoding: "utf8" })).toMatch(
      /up to date/,
    );
    const current = fs.readFileSync(path.join(root, "sdk", "schemas", "openapi.generated.ts"), "utf8");
    expect(current === generate(readDocument())).toBe(true);
  });

  it("a member added to the document is generated, described, writable unless readOnly, and in no other list", () => {
    const document = readDocument();
    const identity = document.components.schemas[IDENTITY]!;
    identity.properties = {
      ...identity.properties,
      team: { type: "string", description: "The team that owns the identity." },
      seenBy: { type: "string", description: "Who saw it last.", readOnly: true },
    } as NonNullable<typeof identity.properties>;
    const generated = generatedFor(document);
    const object = generated.Identity as z.ZodObject;
    expect(((object.shape.team as z.ZodOptional).unwrap() as z.ZodType).description).toBe(
      "The team that owns the identity.",
    );
    expect(object.parse({ team: "red", seenBy: "x", other: 1 })).toEqual({ team: "red", seenBy: "x" });
    expect(generated.IdentityWritable).toContain("team");
    expect(generated.IdentityWritable).not.toContain("seenBy");
  });

  it("members keep the document's order, after those the published schema has always shown first", () => {
    const document = readDocument();
    for (const name of ["platform.registry.v2beta1.Tag", "platform.iam.v2beta1.AccountAssociation"]) {
      const object = document.components.schemas[name]!;
      object.properties = Object.fromEntries(Object.entries(object.properties ?? {}).reverse());
    }
    const generated = generatedFor(document);
    // Tag is shown in a fixed order (schema.json, the SDKs); AccountAssociation follows the document.
    expect(Object.keys((generated.Tag as z.ZodObject).shape)).toEqual(Object.keys(wire.Tag.shape));
    expect(Object.keys((generated.AccountAssociation as z.ZodObject).shape)).toEqual(
      Object.keys(wire.AccountAssociation.shape).reverse(),
    );
  });
});

/** Each resource the SDK creates and updates: its OpenAPI object, create body and update-mask paths. */
const RESOURCES = [
  ["platform.iam.v2beta1.Identity", schemas.IdentityCreate, schemas.IDENTITY_UPDATE_FIELDS, []],
  ["platform.iam.v2beta1.Group", schemas.GroupCreate, schemas.GROUP_UPDATE_FIELDS, NOT_CLIENT_SETTABLE.Group],
  ["platform.iam.v2beta1.Role", schemas.RoleCreate, schemas.ROLE_UPDATE_FIELDS, []],
  ["platform.iam.v2beta1.RoleBinding", schemas.RoleBindingCreate, schemas.ROLE_BINDING_UPDATE_FIELDS, []],
  [
    "platform.iam.v2beta1.IdentityProvider",
    schemas.IdentityProviderCreate,
    schemas.IDENTITY_PROVIDER_UPDATE_FIELDS,
    [],
  ],
  [
    "platform.iam.v2beta1.AccountAssociation",
    schemas.AccountAssociationCreate,
    schemas.ACCOUNT_ASSOCIATION_UPDATE_FIELDS,
    [],
  ],
] as const;

describe("request bodies and update masks derive from the OpenAPI document", () => {
  const document = readDocument();
  it.each(RESOURCES)(
    "%s: create takes and update names every writable member",
    (name, create, fields, refused) => {
      const properties = document.components.schemas[name]!.properties ?? {};
      const writable = Object.keys(properties).filter(
        (member) => properties[member]!.readOnly !== true && !(refused as readonly string[]).includes(member),
      );
      expect(Object.keys(create.shape).sort()).toEqual([...writable].sort());
      expect([...fields].sort()).toEqual([...writable].sort());
    },
  );

  it("group invites (no update) take every writable member on create", () => {
    const properties = document.components.schemas["platform.iam.v2beta1.GroupInvite"]!.properties ?? {};
    const writable = Object.keys(properties).filter((member) => properties[member]!.readOnly !== true);
    expect(Object.keys(schemas.GroupInviteCreate.shape).sort()).toEqual(writable.sort());
  });

  it("enums are the document's: capabilities (without UNKNOWN) and service principals", () => {
    expect(schemas.SERVICE_PRINCIPALS).toEqual(wire.ServicePrincipalValues);
    expect(["UNKNOWN", ...require("../../sdk/schemas/capabilities").CAPABILITIES]).toEqual([
      ...wire.CapabilityValues,
    ]);
  });

  it("responses keep the document's descriptions", () => {
    expect(schemas.Identity.shape.company.unwrap().description).toBe(
      "Optional company associated with the identity.",
    );
  });
});

describe("the spec's rules are written once", () => {
  it("the identity kinds are one list for the SDK, the provider and the emulator", () => {
    expect(DECLARED_KINDS).toBe(IDENTITY_KINDS);
    expect(schemas.IDENTITY_RELATIONSHIPS).toBe(IDENTITY_KINDS);
  });

  it("a JWKS's first private key is found wherever it is, and nothing else is refused", () => {
    const publicKey = fc.record({ kty: fc.constantFrom("RSA", "EC"), n: fc.string(), e: fc.string() });
    const privateKey = fc.record({ kty: fc.constant("RSA"), d: fc.string() });
    fc.assert(
      fc.property(fc.array(fc.oneof(publicKey, privateKey), { maxLength: 6 }), (keys) => {
        const first = keys.findIndex((key) => "d" in key);
        const text = JSON.stringify({ keys });
        expect(privateKeyIndex(text)).toBe(first === -1 ? undefined : first);
        expect(privateKeyProblem(text, "f")).toBe(
          first === -1 ? undefined : `f: keys[${first}] is a private key; give only the public key`,
        );
      }),
      { seed: 26, numRuns: 200 },
    );
    expect(privateKeyIndex("not json")).toBeUndefined();
  });
});

describe("data-source outputs", () => {
  it("every output of every data source, and every member of their types, is described", () => {
    const schema = buildPackageSchema() as {
      functions: Record<
        string,
        { outputs: { properties: Record<string, { description?: string; $ref?: string }> } }
      >;
      types: Record<string, { properties?: Record<string, { description?: string }> }>;
    };
    const undescribed: string[] = [];
    const typesSeen = new Set<string>();
    const visit = (
      where: string,
      properties: Record<string, { description?: string; $ref?: string }>,
    ): void => {
      for (const [name, property] of Object.entries(properties)) {
        if (!property.description) undescribed.push(`${where}.${name}`);
        const ref = property.$ref ?? (property as { items?: { $ref?: string } }).items?.$ref;
        const type = ref?.replace("#/types/", "");
        if (type !== undefined && !typesSeen.has(type)) {
          typesSeen.add(type);
          visit(type, schema.types[type]?.properties ?? {});
        }
      }
    };
    for (const [token, fn] of Object.entries(schema.functions)) visit(token, fn.outputs.properties);
    expect(Object.keys(schema.functions).length).toBeGreaterThan(0);
    expect(undescribed).toEqual([]);
  });
});

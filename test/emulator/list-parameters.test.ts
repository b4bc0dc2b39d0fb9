/**
 * Every query parameter the OpenAPI documents on a list the emulator serves has exactly one rule in the emulator
 * (honoured with the OpenAPI's value format, or refused with a reason), and emulator/README.md's table names it:
 * neither side drifts unnoticed. What each rule does is tested in faithful.test.ts.
 */
import { specsInOrder } from "../../emulator/routes/specs";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_ROLES } from "../../emulator";
import type { ParamFormat, ParamRule } from "../../emulator/listing";
import type { CollectionSpec } from "../../emulator/routes/crud";
import { listParameters } from "../../emulator/routes/crud-list";
import { V1_LISTS } from "../../emulator/routes/v1";
import { details, enc, start, type Api } from "./helpers";
import { SPEC_PATH } from "./openapi";

interface Parameter {
  name: string;
  in: string;
  description?: string;
  schema: {
    type?: string;
    format?: string;
    enum?: string[];
    items?: { type?: string; format?: string; enum?: string[] };
  };
}
const spec = JSON.parse(readFileSync(SPEC_PATH, "utf8")) as {
  paths: Record<string, { get?: { parameters?: Parameter[] } }>;
};
const readme = readFileSync(join(__dirname, "..", "..", "emulator", "README.md"), "utf8");

const LISTS: CollectionSpec[] = specsInOrder();

/** A uid-valued parameter: a uidp scope, or one the OpenAPI describes as a UID or UIDP (roleBindings' filters). */
function uidValued(p: Parameter): boolean {
  return (
    (p.name.startsWith("uidp.") && p.schema.type !== "boolean") || /\bUIDP?s?\b/.test(p.description ?? "")
  );
}

/** The rule a parameter's OpenAPI schema calls for when it is honoured. */
function expectedFormat(p: Parameter): ParamFormat {
  const schema = p.schema.type === "array" ? (p.schema.items ?? {}) : p.schema;
  if (schema.enum !== undefined) return schema.enum;
  if (schema.type === "boolean") return "boolean";
  if (uidValued(p)) return "uid";
  if (schema.format === "date-time") return "date-time";
  if (schema.type === "integer" && schema.format === "int32") return "int32";
  return "text";
}

/** The rule: the format, once, or `{ each }` where the OpenAPI repeats the parameter (an array). */
function expectedRule(p: Parameter): ParamRule {
  return p.schema.type === "array" ? { each: expectedFormat(p) } : expectedFormat(p);
}

describe.each(LISTS.map((s) => [s.prefix, s] as const))("GET %s", (prefix, resource) => {
  const documented = (spec.paths[prefix]?.get?.parameters ?? []).filter((p) => p.in === "query");
  const rules = listParameters(resource);

  test("has a rule for exactly the OpenAPI's query parameters", () => {
    expect(documented.length).toBeGreaterThan(0);
    expect(Object.keys(rules).sort()).toEqual(documented.map((p) => p.name).sort());
  });

  test("an honoured parameter takes the OpenAPI's value format", () => {
    for (const p of documented) {
      const rule = rules[p.name];
      if (typeof rule === "object" && "refused" in rule) continue; // refused, with its reason
      // An enum's values as a set: their order in a rule means nothing.
      const sorted = (r: ParamRule | undefined): unknown =>
        Array.isArray(r)
          ? [...r].sort()
          : typeof r === "object" && "each" in r
            ? { each: sorted(r.each) }
            : r;
      expect([p.name, sorted(rule)]).toEqual([p.name, sorted(expectedRule(p))]);
    }
  });

  test("emulator/README.md's table names every parameter, with what the emulator does", () => {
    // Table cells, trimmed (prettier pads them): operation, parameter, what the emulator does.
    const rows = readme
      .split("\n")
      .filter((l) => l.startsWith("| "))
      .map((l) => l.split("|").map((c) => c.trim()))
      .filter(([, op]) => op === `GET ${prefix}` || op === "every v2 list")
      .map(([, , param, what]) => `${param} | ${what}`);
    for (const p of documented) {
      const row = rows.find((r) => r.startsWith(`\`${p.name}\` |`));
      expect([p.name, row !== undefined]).toEqual([p.name, true]);
      const rule = rules[p.name];
      const refused = typeof rule === "object" && "refused" in rule;
      expect([p.name, /\| refused/.test(row!)]).toEqual([p.name, refused]);
    }
  });
});

/**
 * Every uid-valued parameter of every list, v2 and v1, refuses a malformed uid with code 3 naming the parameter as
 * the client spelled it (never 200 with an empty list), and takes a well-formed one: a root, a child, a built-in
 * role's 40 hex. A malformed `uidp.ids` or roleBindings `identity` must be refused, not answered 200 as if it matched nothing.
 */
describe("a uid-valued list parameter", () => {
  let api: Api;
  beforeAll(async () => {
    api = await start();
  });
  afterAll(async () => {
    await api.emulator.close();
  });

  const uidRules = (rules: Readonly<Record<string, ParamRule>>) =>
    Object.entries(rules)
      .filter(
        ([, rule]) => rule === "uid" || (typeof rule === "object" && "each" in rule && rule.each === "uid"),
      )
      .map(([name]) => name);
  const cases: [string, string][] = [
    ...LISTS.flatMap((s) => uidRules(listParameters(s)).map((name) => [s.prefix, name] as [string, string])),
    ...V1_LISTS.flatMap((l) => uidRules(l.params).map((name) => [l.path, name] as [string, string])),
  ];
  const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  const MALFORMED = ["not a uid", "ABCDEF0123456789", "0123456789abcdef/xyz", "a/b", "%00", "../../etc"];

  test("every list has them: the uidp scopes and roleBindings' identity, group and role", () => {
    expect(
      cases
        .filter(([path]) => path === "/iam/v2beta1/roleBindings")
        .map(([, n]) => n)
        .sort(),
    ).toEqual(
      [
        "group",
        "identity",
        "role",
        "uidp.ancestorsOf",
        "uidp.childrenOf",
        "uidp.descendantsOf",
        "uidp.ids",
      ].sort(),
    );
    expect(
      cases
        .filter(([path]) => path === "/iam/v1/groups")
        .map(([, n]) => n)
        .sort(),
    ).toEqual(["id", "uidp.ancestorsOf", "uidp.childrenOf", "uidp.descendantsOf", "uidp.ids"].sort());
  });

  test.each(cases)(
    "GET %s ?%s: a malformed uid is code 3 naming it, in either spelling",
    async (path, name) => {
      const before = JSON.stringify(api.emulator.snapshot());
      for (const spelled of [...new Set([name, snake(name)])])
        for (const value of MALFORMED) {
          const response = await api.get(`${path}?${enc(spelled)}=${enc(value)}`);
          expect([spelled, value, response.status]).toEqual([spelled, value, 400]);
          expect(details(response.body).fieldViolations.map((v) => v.field)).toEqual([spelled]);
        }
      // One malformed id among good ones is refused too.
      if (name === "uidp.ids" || name === "id") {
        const response = await api.get(`${path}?${name}=${api.emulator.orgUid},nope`);
        expect(response.status).toBe(400);
      }
      expect(JSON.stringify(api.emulator.snapshot())).toBe(before);
    },
  );

  test.each(cases)("GET %s ?%s: a well-formed uid is taken", async (path, name) => {
    const org = api.emulator.orgUid;
    for (const value of [org, `${org}/0123456789abcdef`, BUILTIN_ROLES[0]!.uid, ""]) {
      const response = await api.get(`${path}?${enc(name)}=${enc(value)}`);
      expect([name, value, response.status]).toEqual([name, value, 200]);
    }
  });
});

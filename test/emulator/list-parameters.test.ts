/**
 * Every query parameter the OpenAPI documents on a list the emulator serves has exactly one rule in the emulator
 * (honoured with the OpenAPI's value format, or refused with a reason), and emulator/README.md's table names it:
 * neither side drifts unnoticed (issue 27). What each rule does is tested in faithful.test.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ParamRule } from "../../emulator/listing";
import { accountAssociations } from "../../emulator/routes/account-associations";
import { advisories } from "../../emulator/routes/advisories";
import { listParameters, type ResourceSpec } from "../../emulator/routes/crud";
import { groupInvites } from "../../emulator/routes/group-invites";
import { groups } from "../../emulator/routes/groups";
import { identities } from "../../emulator/routes/identities";
import { identityProviders } from "../../emulator/routes/identity-providers";
import { repos } from "../../emulator/routes/repos";
import { roleBindings } from "../../emulator/routes/role-bindings";
import { roles } from "../../emulator/routes/roles";
import { tags } from "../../emulator/routes/tags";
import { SPEC_PATH } from "./openapi";

interface Parameter {
  name: string;
  in: string;
  schema: { type?: string; format?: string; enum?: string[]; items?: { type?: string; enum?: string[] } };
}
const spec = JSON.parse(readFileSync(SPEC_PATH, "utf8")) as {
  paths: Record<string, { get?: { parameters?: Parameter[] } }>;
};
const readme = readFileSync(join(__dirname, "..", "..", "emulator", "README.md"), "utf8");

const LISTS: ResourceSpec[] = [
  groups,
  identities,
  roles,
  roleBindings,
  identityProviders,
  groupInvites,
  accountAssociations,
  repos,
  tags,
  advisories,
];

/** The rule a parameter's OpenAPI schema calls for when it is honoured. */
function expectedRule(p: Parameter): ParamRule {
  const schema = p.schema.type === "array" ? (p.schema.items ?? {}) : p.schema;
  if (schema.enum !== undefined) return schema.enum;
  if (schema.type === "boolean") return "boolean";
  if (p.schema.format === "date-time") return "date-time";
  if (["pageSize", "pageToken", "orderBy", "skip"].includes(p.name)) return "paging";
  return "text";
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
      if (typeof rule === "object" && !Array.isArray(rule)) continue; // refused, with its reason
      expect([p.name, rule]).toEqual([p.name, expectedRule(p)]);
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
      const refused = typeof rule === "object" && !Array.isArray(rule);
      expect([p.name, /\| refused/.test(row!)]).toEqual([p.name, refused]);
    }
  });
});

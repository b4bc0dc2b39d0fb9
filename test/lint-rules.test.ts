/**
 * The rules of the house that `npm run lint` checks (eslint.config.js), shown failing on code that breaks them: ESLint's
 * own Node API lints a probe file's text as if it sat at a path in the tree (nothing is written).
 *
 * - A uid taken apart by hand outside sdk/uidp.ts (parentOf, rootOf, depthOf, isRoot, isBelow, ... answer instead).
 * - An import against the layering (eslint.layering.js): as `import`, `export ... from`, `require()`, `import()` or
 *   `typeof import()`, from any depth of a floor's folders.
 */
import * as path from "node:path";
import { ESLint } from "eslint";

const root = path.resolve(__dirname, "..");
// The configuration is handed over already loaded: ESLint loads a config file by dynamic import, which jest's VM lacks.
const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: require(path.join(root, "eslint.config.js")) as ESLint.Options["overrideConfig"],
});

/** The rules that `code` breaks as the file `file` (relative to the repository), with their messages. */
async function broken(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe("uids are taken apart in sdk/uidp.ts only", () => {
  const BY_HAND = [
    'export const parent = (uid: string) => uid.slice(0, uid.lastIndexOf("/"));',
    'export const root = (uid: string) => uid.split("/")[0];',
    'export const depth = (uid: string) => uid.split("/").length;',
    'export const isRoot = (o: { uid: string }) => !o.uid.includes("/");',
    'export const cut = (uid: string) => uid.indexOf("/");',
    "export const below = (uid: string, group: string) => uid.startsWith(`${group}/`);",
  ];

  it.each(BY_HAND)(
    "%s fails lint in every floor",
    async (code) => {
      for (const floor of ["sdk", "provider/core", "emulator/routes", "commands/access", "policy", "bench"])
        expect(await broken(`${floor}/probe.ts`, code)).toEqual([
          expect.stringMatching(/^no-restricted-syntax: .*sdk\/uidp\.ts/),
        ]);
    },
    30_000,
  );

  it("passes in sdk/uidp.ts, and for what is not taken apart by a slash", async () => {
    expect(await broken("sdk/uidp.ts", BY_HAND.join("\n"))).toEqual([]);
    const other = [
      'import { parentOf } from "../sdk/uidp";',
      'export const p = (uid: string) => parentOf(uid) ?? "";',
      'export const words = (s: string) => s.split(" ");',
      'export const slashed = (s: string) => s.endsWith("/") || s.startsWith("/");',
      "export const prefixed = (s: string, p: string) => s.startsWith(`${p}-`);",
    ].join("\n");
    expect(await broken("commands/probe.ts", other)).toEqual([]);
  });
});

describe("each floor imports only what the layering allows", () => {
  /** [file, specifier, allowed] */
  const CASES: [string, string, boolean][] = [
    ["sdk/probe.ts", "../commands/access/cli", false],
    ["sdk/probe.ts", "../provider", false],
    ["sdk/probe.ts", "../emulator/store", false],
    ["sdk/probe.ts", "./uidp", true],
    ["sdk/schemas/probe.ts", "../../commands/program", false],
    ["sdk/schemas/probe.ts", "../resources/groups", false],
    ["sdk/schemas/probe.ts", "../rules", true],
    ["sdk/resources/probe.ts", "../schemas", true],
    ["provider/probe.ts", "../emulator", false],
    ["provider/iam/probe.ts", "../../sdk", true],
    ["provider/iam/probe.ts", "../../commands/kinds", false],
    ["provider/iam/probe.ts", "../registry/get-repo.implementation", false],
    ["provider/core/probe.ts", "../iam/role.implementation", false],
    ["provider/core/probe.ts", "../catalogue", false],
    ["provider/core/probe.ts", "../types.generated", true],
    ["emulator/probe.ts", "../commands/program", true],
    ["emulator/probe.ts", "../commands/command", true],
    ["emulator/probe.ts", "../commands/access/spec", false],
    ["emulator/probe.ts", "../commands/programs", false],
    ["emulator/probe.ts", "../provider/core/check", false],
    ["emulator/routes/probe.ts", "../grpc/server", false],
    ["emulator/grpc/probe.ts", "../routes/types", true],
    ["commands/probe.ts", "./access/spec", false],
    ["commands/probe.ts", "../provider/catalogue", true],
    ["commands/access/probe.ts", "../import/spec", false],
    ["commands/access/run/probe.ts", "../../import/run/walk", false],
    ["commands/access/run/probe.ts", "../../command", true],
    ["commands/import/probe.ts", "../../emulator", false],
    ["plugin/probe.ts", "../sdk", false],
    ["plugin/probe.ts", "../provider/catalogue", true],
    ["policy/probe.ts", "../emulator/builtin-roles", true],
    ["policy/probe.ts", "../emulator/store", false],
    ["policy/probe.ts", "../commands/access/plan", true],
    ["policy/probe.ts", "../commands/import/spec", false],
    ["bench/probe.ts", "../test/commands/fixtures", true],
  ];
  const FORMS: [string, (specifier: string) => string][] = [
    ["import", (s) => `import { x } from "${s}";\nexport const y = x;`],
    ["import type", (s) => `import type { X } from "${s}";\nexport type Y = X;`],
    ["export from", (s) => `export { x } from "${s}";`],
    ["require", (s) => `export const m = require("${s}") as unknown;`],
    ["import()", (s) => `export const m = () => import("${s}");`],
    ["typeof import", (s) => `export type M = typeof import("${s}");`],
  ];

  it.each(CASES)(
    "%s importing %s: allowed %s",
    async (file, specifier, allowed) => {
      for (const [form, code] of FORMS) {
        const messages = await broken(file, code(specifier));
        if (allowed) expect([form, messages]).toEqual([form, []]);
        else
          expect([form, messages]).toEqual([
            form,
            [
              expect.stringMatching(
                /^no-restricted-(imports|syntax): .* may not import .*eslint\.layering\.js/,
              ),
            ],
          ]);
      }
    },
    30_000,
  );
});

/**
 * The rules of the house that `npm run lint` checks (eslint.config.js), shown failing on code that breaks them: ESLint's
 * own Node API lints a probe file's text as if it sat at a path in the tree (nothing is written).
 *
 * - A uid taken apart by hand outside sdk/uidp.ts (parentOf, rootOf, depthOf, isRoot, isBelow, ... answer instead).
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

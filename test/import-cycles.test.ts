/**
 * No import cycle in the repository's own modules (sdk/, provider/, emulator/, plugin/, commands/): a cycle makes
 * load order matter (a value read before its module finished loading is undefined) and makes modules impossible to
 * read or test one at a time. Type-only imports count too: they tie the modules' meanings together just the same.
 *
 * The imports are read with the TypeScript compiler's own pre-processor (`ts.preProcessFile`: `import`,
 * `export ... from`, `import x = require()`); a `require()` inside a function (the lazy provider modules load their
 * implementation on first use) is not an import at load time and is not counted.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as ts from "typescript";

const root = path.resolve(__dirname, "..");
const FOLDERS = ["sdk", "provider", "emulator", "plugin", "commands"];

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sources(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

/** The repository modules a file imports at load time (relative specifiers resolved to .ts files). */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(fs.readFileSync(file, "utf8"), true, false);
  const resolved = info.importedFiles
    .map((f) => f.fileName)
    .filter((name) => name.startsWith("."))
    .map((name) => path.resolve(path.dirname(file), name))
    .flatMap((base) =>
      [`${base}.ts`, path.join(base, "index.ts"), base]
        .filter((c) => c.endsWith(".ts") && fs.existsSync(c))
        .slice(0, 1),
    );
  return [...new Set(resolved)];
}

/** Every cycle's modules, found by a depth-first walk (each cycle reported once, from where it was entered). */
function cycles(files: string[]): string[][] {
  const graph = new Map(files.map((f) => [f, importsOf(f)]));
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string): void => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open")
        found.push(stack.slice(stack.indexOf(next)).map((f) => path.relative(root, f)));
      else if (state.get(next) === undefined && graph.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of files) if (state.get(file) === undefined) visit(file);
  return found;
}

describe("import cycles", () => {
  it("there is none in sdk/, provider/, emulator/, plugin/ or commands/", () => {
    const files = FOLDERS.flatMap((folder) => sources(path.join(root, folder)));
    expect(files.length).toBeGreaterThan(100);
    expect(cycles(files).map((cycle) => cycle.join(" -> "))).toEqual([]);
  });

  it("finds a cycle, type-only imports included (the walker itself)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cycles-"));
    try {
      fs.writeFileSync(path.join(dir, "a.ts"), 'import type { B } from "./b";\nexport type A = B;\n');
      fs.writeFileSync(path.join(dir, "b.ts"), 'import { c } from "./c";\nexport type B = typeof c;\n');
      fs.writeFileSync(path.join(dir, "c.ts"), 'import x = require("./a");\nexport const c = x;\n');
      fs.writeFileSync(path.join(dir, "d.ts"), 'export const d = () => require("./a");\n');
      const names = cycles(["a", "b", "c", "d"].map((n) => path.join(dir, `${n}.ts`))).map((cycle) =>
        cycle.map((f) => path.basename(f)),
      );
      expect(names).toEqual([["a.ts", "b.ts", "c.ts"]]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * provider/types.generated.ts is generated from the data sources' zod schemas (scripts/generate-types.js): it must match them,
 * and no public declaration of the package may reach zod (a program compiled without esModuleInterop and
 * skipLibCheck would fail on zod's own declarations; test/e2e/user-program.e2e.test.ts compiles such a program).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const root = path.resolve(__dirname, "..", "..");

describe("the public types", () => {
  it("provider/types.generated.ts matches the zod schemas", () => {
    expect(() =>
      execFileSync("node", [path.join(root, "scripts", "generate.js"), "--check", "--only", "types"], {
        stdio: "pipe",
      }),
    ).not.toThrow();
  });

  it("no declaration reachable from the package's entry point imports zod", () => {
    const entry = path.join(root, "dist", "provider", "index.d.ts");
    expect(fs.existsSync(entry)).toBe(true); // npm test builds first
    const seen = new Set<string>();
    const reachingZod: string[] = [];
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = fs.readFileSync(file, "utf8");
      if (/from "zod"|import\("zod"\)/.test(text)) reachingZod.push(path.relative(root, file));
      for (const match of text.matchAll(/(?:from |import\()"(\.[^"]+)"/g)) {
        const base = path.resolve(path.dirname(file), match[1] ?? "");
        for (const candidate of [`${base}.d.ts`, path.join(base, "index.d.ts")]) {
          if (fs.existsSync(candidate)) visit(candidate);
        }
      }
    };
    visit(entry);
    expect(seen.size).toBeGreaterThan(10);
    expect(reachingZod).toEqual([]);
  });
});

/**
 * `npm run build` leaves every command of package.json's `bin` executable: after
 * `rm -rf dist && npm run build`, `npx platform-emulator` must run, not fail with "Permission denied".
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(__dirname, "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  bin: Record<string, string>;
  scripts: Record<string, string>;
};

describe("the build marks the package's commands executable", () => {
  test("the build script runs the step after tsc", () => {
    expect(manifest.scripts.build).toMatch(
      /^tsc -p tsconfig\.build\.json && node scripts\/mark-executable\.js( && |$)/,
    );
  });

  test("the package's commands, each a module of the build", () => {
    expect(manifest.bin).toEqual({
      "platform-emulator": "dist/emulator/cli.js",
      "platform-import": "dist/commands/import/cli.js",
      "platform-access": "dist/commands/access/cli.js",
    });
    for (const bin of Object.values(manifest.bin))
      expect(statSync(join(root, bin.replace(/^dist\//, "").replace(/\.js$/, ".ts"))).isFile()).toBe(true);
  });

  test("every bin, written 0644 as tsc writes it, comes out executable by whoever may read it", () => {
    const dir = mkdtempSync(join(tmpdir(), "bins-"));
    try {
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "x", bin: manifest.bin }));
      for (const bin of Object.values(manifest.bin)) {
        mkdirSync(join(dir, bin, ".."), { recursive: true });
        writeFileSync(join(dir, bin), "#!/usr/bin/env node\nconsole.log('ran');\n");
        chmodSync(join(dir, bin), 0o644);
      }
      execFileSync(process.execPath, [join(root, "scripts", "mark-executable.js"), dir]);
      for (const bin of Object.values(manifest.bin)) {
        expect([bin, (statSync(join(dir, bin)).mode & 0o777).toString(8)]).toEqual([bin, "755"]);
        expect(execFileSync(join(dir, bin), { encoding: "utf8" })).toBe("ran\n");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * `npm run build` puts the gRPC face's .proto files beside the compiled loader (dist/emulator/grpc/proto), which
 * tsc alone does not: without them the built emulator and the installed package cannot load their services.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { protoFiles } from "../emulator/grpc/protos";

const root = join(__dirname, "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
};

describe("the build copies the proto files", () => {
  test("the build script runs the copy after tsc", () => {
    const steps = manifest.scripts.build!.split(" && ");
    expect(steps[0]).toMatch(/^tsc -p tsconfig\.build\.json$/);
    expect(steps).toContain("node scripts/copy-protos.js");
  });

  test("every .proto lands under dist/emulator/grpc/proto, and a stale one is removed", () => {
    const dir = mkdtempSync(join(tmpdir(), "protos-"));
    try {
      const source = join(dir, "emulator", "grpc", "proto");
      for (const file of protoFiles()) {
        mkdirSync(join(source, file, ".."), { recursive: true });
        writeFileSync(join(source, file), `// ${file}\n`);
      }
      const stale = join(dir, "dist", "emulator", "grpc", "proto", "old", "gone.proto");
      mkdirSync(join(stale, ".."), { recursive: true });
      writeFileSync(stale, "// removed upstream\n");
      execFileSync(process.execPath, [join(root, "scripts", "copy-protos.js"), dir]);
      for (const file of protoFiles()) {
        expect(readFileSync(join(dir, "dist", "emulator", "grpc", "proto", file), "utf8")).toBe(
          `// ${file}\n`,
        );
      }
      expect(existsSync(stale)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

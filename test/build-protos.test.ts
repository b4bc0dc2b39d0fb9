/**
 * The gRPC face's descriptors are compiled at build time (scripts/generate-protos.js, buf from npm) into
 * emulator/grpc/descriptor-set.generated.ts, checked in: the emulator parses no .proto file at run time, so the
 * built package needs none beside it. The generator's check fails when a .proto file changes without the file
 * being regenerated, and regenerating brings it back in line.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(__dirname, "..");
const GENERATED = join("emulator", "grpc", "descriptor-set.generated.ts");

describe("the compiled descriptors", () => {
  test("the build copies no .proto file, and the run-time code reads none", () => {
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
      dependencies: Record<string, string>;
    };
    expect(manifest.scripts.build).not.toMatch(/proto/);
    // One protobuf runtime: neither protobuf.js nor proto-loader is a run-time dependency.
    expect(Object.keys(manifest.dependencies)).not.toEqual(expect.arrayContaining(["protobufjs"]));
    expect(Object.keys(manifest.dependencies)).not.toContain("@grpc/proto-loader");
    const grpcDir = join(root, "emulator", "grpc");
    for (const file of readdirSync(grpcDir).filter((f) => f.endsWith(".ts"))) {
      const source = readFileSync(join(grpcDir, file), "utf8");
      expect([file, /node:fs|protobufjs|proto-loader|\.proto["'`]/.test(source)]).toEqual([file, false]);
    }
  });

  test("a changed .proto is drift until regenerated", () => {
    const dir = mkdtempSync(join(tmpdir(), "protos-"));
    try {
      for (const part of ["buf.yaml", "proto", "reflection", "descriptor-set.generated.ts"])
        cpSync(join(root, "emulator", "grpc", part), join(dir, "emulator", "grpc", part), {
          recursive: true,
        });
      mkdirSync(join(dir, "scripts"));
      cpSync(join(root, "scripts", "generate-protos.js"), join(dir, "scripts", "generate-protos.js"));
      symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
      const script = join(dir, "scripts", "generate-protos.js");
      const check = () => spawnSync(process.execPath, [script, "--check"], { encoding: "utf8" });
      expect(check().status).toBe(0);

      const proto = join(
        dir,
        "emulator",
        "grpc",
        "proto",
        "chainguard",
        "platform",
        "iam",
        "v2beta1",
        "groups.proto",
      );
      writeFileSync(proto, `${readFileSync(proto, "utf8")}\nmessage DriftProbe { string probe = 1; }\n`);
      const drifted = check();
      expect([drifted.status, drifted.stderr]).toEqual([1, expect.stringContaining(GENERATED)]);

      execFileSync(process.execPath, [script]);
      expect(check().status).toBe(0);
      expect(readFileSync(join(dir, GENERATED), "utf8")).not.toBe(
        readFileSync(join(root, GENERATED), "utf8"),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

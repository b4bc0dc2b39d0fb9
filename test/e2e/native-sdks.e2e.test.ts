/**
 * native-sdks/ (the native plugin's SDKs) against its sources: it must be exactly what `npm run sdks`
 * generates from the current schema.json (gen-sdk runs in our engine's language hosts, hence this suite), and
 * examples/go must build against the generated Go SDK, and the Python SDK must build as a wheel that installs and
 * imports in the environment scripts/python-env.sh makes. The TypeScript SDK's compile check is a unit test
 * (test/native-sdks.test.ts): it needs no engine.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { engineBinDir, repoRoot } from "./harness";
import { pythonEnvironment } from "./python-env";

jest.setTimeout(300_000);

describe("native-sdks/", () => {
  let scratch: string;

  beforeAll(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "native-sdks-e2e-"));
  });

  afterAll(() => {
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  test("is what `npm run sdks` generates from the current schema.json", () => {
    const check = spawnSync(
      process.execPath,
      [path.join(repoRoot, "scripts", "generate.js"), "--check", "--only", "sdks"],
      {
        cwd: repoRoot,
        encoding: "utf8",
        timeout: 240_000,
        env: {
          ...process.env,
          PULUMI_PLATFORM_ENGINE_BIN: engineBinDir(),
          PULUMI_PLATFORM_STATE_DIR: scratch,
        },
      },
    );

    // The message lists every differing file and says to run `npm run sdks`.
    expect({ status: check.status, stderr: check.status === 0 ? "" : check.stderr }).toEqual({
      status: 0,
      stderr: "",
    });
  });

  test("examples/go builds against the generated Go SDK", () => {
    // Our Go host needs Go, so wherever the engine runs Go programs, `go` is here.
    const build = spawnSync("go", ["build", "-o", path.join(scratch, "example"), "."], {
      cwd: path.join(repoRoot, "examples", "go"),
      encoding: "utf8",
      timeout: 240_000,
    });

    expect({ status: build.status, error: build.error?.message, stderr: build.stderr }).toEqual({
      status: 0,
      error: undefined,
      stderr: "",
    });
  });

  test("the Python SDK builds as a typed wheel that installs and imports", () => {
    const venv = pythonEnvironment();
    const check = spawnSync(
      path.join(venv, "bin", "python"),
      [
        "-c",
        [
          "import importlib.resources, pulumi_platform_native as p",
          "print(p.iam.Group.__name__, p.iam.get_role_output.__name__)",
          "print(importlib.resources.files('pulumi_platform_native').joinpath('py.typed').is_file())",
        ].join("; "),
      ],
      { cwd: scratch, encoding: "utf8", timeout: 120_000 },
    );

    expect({ status: check.status, stdout: check.stdout, stderr: check.stderr }).toEqual({
      status: 0,
      stdout: "Group get_role_output\nTrue\n",
      stderr: "",
    });
  });
});

/**
 * The release's plugin and emulator run with nothing installed (scripts/build-plugin.js, scripts/build-emulator.js):
 *
 * - with a PATH on which no `node` can be found (every directory of the test's PATH, its `node`, `nodejs`, `npm`,
 *   `npx` and `corepack` left out; checked), the linux-amd64 emulator archive, unpacked, starts and answers REST
 *   and gRPC (server reflection lists what the emulator run from the sources lists), and examples/python and
 *   examples/yaml run on the linux-amd64 plugin archive, installed with `pulumi plugin install --file`, against
 *   it: preview, up, refresh and destroy, the engine and its Python and YAML language hosts (Go binaries) on that
 *   same PATH;
 * - every other archive carries its platform's official Node.js unchanged (the bytes of the npm registry's package):
 *   ELF for linux on its architecture, Mach-O for darwin with a signature that `rcodesign verify` accepts, PE for
 *   windows with its Authenticode certificate table, beside the launcher of its OS.
 *
 * The release is built once per run (scripts/release.js); rcodesign by scripts/rcodesign.sh (cargo, once).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

import { startEmulator as startEmulatorInProcess } from "../../emulator";
import { tearDown, oncePerRun, PulumiStack, repoRoot, engineBinDir } from "./harness";
import { installPlugin, pluginVersion as version } from "./plugin-tarball";
import { pythonEnvironment } from "./python-env";
import { runRelease, unpack } from "./release-run";

jest.setTimeout(1_200_000);

const plugin = "pulumi-resource-platform";
const emulatorCommand = "platform-emulator";
const NODE_NAMES = new Set(["node", "nodejs", "npm", "npx", "corepack"]);

const runtimes = require("../../scripts/node-runtimes.js") as {
  nodeRuntimes(platforms: string[]): { platform: string; binaryName: string; binaryFile: string }[];
};

/** The release folder, built once per run. */
function releaseFolder(): string {
  return oncePerRun("release-folder", () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "release-standalone-"));
    return runRelease(out, 20 * 60_000);
  });
}

/**
 * A directory of links to every executable of the test's PATH except Node.js's (the first of each name wins, as
 * on PATH): a PATH on which `node` cannot be found, and everything else can.
 */
function pathWithoutNode(scratch: string): string {
  const dir = fs.mkdtempSync(path.join(scratch, "path-"));
  for (const entry of (process.env["PATH"] ?? "").split(path.delimiter)) {
    if (entry === "" || !fs.existsSync(entry) || !fs.statSync(entry).isDirectory()) continue;
    for (const name of fs.readdirSync(entry)) {
      if (NODE_NAMES.has(name) || fs.existsSync(path.join(dir, name))) continue;
      const file = path.join(entry, name);
      try {
        if (fs.statSync(file).isFile() && (fs.statSync(file).mode & 0o111) !== 0)
          fs.symlinkSync(file, path.join(dir, name));
      } catch {
        // A dangling link: not runnable anyway.
      }
    }
  }
  return dir;
}

/** The unpacked emulator, started with `PATH`; resolves once it printed its URL, token and organization. */
function startEmulator(
  dir: string,
  PATH: string,
): Promise<{ child: ChildProcess; url: string; token: string; orgUid: string }> {
  const child = spawn(path.join(dir, emulatorCommand), ["--quiet"], {
    cwd: dir,
    env: { PATH, HOME: process.env["HOME"] ?? "/" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(
      () => reject(new Error(`the emulator did not start in 30 s: ${stderr}`)),
      30_000,
    );
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const value = (key: string) => new RegExp(`^${key}=(\\S+)$`, "m").exec(stdout)?.[1];
      const [url, token, orgUid] = ["PLATFORM_API_URL", "PLATFORM_TOKEN", "PLATFORM_ORG_UID"].map(value);
      if (url && token && orgUid) {
        clearTimeout(timer);
        resolve({ child, url, token, orgUid });
      }
    });
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the emulator exited (${code}): ${stderr}`));
    });
  });
}

/** The services that gRPC server reflection (v1) lists at `address`. */
function reflectedServices(address: string, token: string): Promise<string[]> {
  const definition = protoLoader.loadSync(
    path.join(
      repoRoot,
      "node_modules",
      "@grpc",
      "reflection",
      "build",
      "proto",
      "grpc",
      "reflection",
      "v1",
      "reflection.proto",
    ),
    { keepCase: true },
  );
  const loaded = grpc.loadPackageDefinition(definition) as unknown as {
    grpc: { reflection: { v1: { ServerReflection: grpc.ServiceClientConstructor } } };
  };
  const client = new loaded.grpc.reflection.v1.ServerReflection(address, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  return new Promise((resolve, reject) => {
    const call = (
      client as unknown as {
        ServerReflectionInfo(m: grpc.Metadata): grpc.ClientDuplexStream<unknown, unknown>;
      }
    ).ServerReflectionInfo(metadata);
    call.on("data", (response: { list_services_response?: { service: { name: string }[] } }) => {
      resolve((response.list_services_response?.service ?? []).map((s) => s.name).sort());
      call.end();
      client.close();
    });
    call.on("error", (error: Error) => {
      client.close();
      reject(error);
    });
    call.write({ list_services: "" });
  });
}

/** The first 4 KiB of a file (zeros past its end): enough for the headers read below. */
function firstBytes(file: string): Buffer {
  const head = Buffer.alloc(4096);
  const fd = fs.openSync(file, "r");
  try {
    fs.readSync(fd, head, 0, head.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  return head;
}

/** The ELF machine, Mach-O cpu type or PE machine of a binary, as a word. */
function binaryFormat(file: string): string {
  const head = firstBytes(file);
  if (head.readUInt32BE(0) === 0x7f454c46) {
    return `ELF ${({ 0x3e: "x86-64", 0xb7: "aarch64" } as Record<number, string>)[head.readUInt16LE(18)] ?? "?"}`;
  }
  if (head.readUInt32LE(0) === 0xfeedfacf) {
    return `Mach-O ${({ 0x01000007: "x86-64", 0x0100000c: "arm64" } as Record<number, string>)[head.readUInt32LE(4)] ?? "?"}`;
  }
  if (head.toString("latin1", 0, 2) === "MZ") {
    const pe = head.readUInt32LE(0x3c);
    if (head.toString("latin1", pe, pe + 4) === "PE\0\0") {
      return `PE ${({ 0x8664: "x86-64", 0xaa64: "arm64" } as Record<number, string>)[head.readUInt16LE(pe + 4)] ?? "?"}`;
    }
  }
  return "unknown";
}

/** The size of a PE's certificate table (its Authenticode signature): data directory 4 of the optional header. */
function peCertificateTableSize(file: string): number {
  const head = firstBytes(file);
  const optional = head.readUInt32LE(0x3c) + 24;
  expect(head.readUInt16LE(optional)).toBe(0x20b); // PE32+
  return head.readUInt32LE(optional + 112 + 4 * 8 + 4);
}

const EXPECTED_FORMAT: Record<string, string> = {
  "linux-amd64": "ELF x86-64",
  "linux-arm64": "ELF aarch64",
  "darwin-amd64": "Mach-O x86-64",
  "darwin-arm64": "Mach-O arm64",
  "windows-amd64": "PE x86-64",
};

describe("the release runs with nothing installed", () => {
  let scratch: string;
  let release: string;
  let noNodePath: string;
  let emulatorDir: string;
  let emulator: { child: ChildProcess; url: string; token: string; orgUid: string };

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "standalone-e2e-"));
    release = releaseFolder();
    noNodePath = pathWithoutNode(scratch);
    emulatorDir = unpack(path.join(release, `${emulatorCommand}-v${version}-linux-amd64.tar.gz`), scratch);
    emulator = await startEmulator(emulatorDir, noNodePath);
  });

  afterAll(() => {
    emulator?.child.kill("SIGTERM");
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  test("no `node` can be found on that PATH, nor in the engine's directory", () => {
    const found = execFileSync("bash", ["-c", "command -v node nodejs || echo none"], {
      env: { PATH: noNodePath },
      encoding: "utf8",
    });
    expect(found.trim()).toBe("none");
    expect(fs.readdirSync(engineBinDir()).filter((name) => NODE_NAMES.has(name))).toEqual([]);
    expect(fs.existsSync(path.join(noNodePath, "bash"))).toBe(true);
  });

  test("the linux-amd64 emulator answers REST and gRPC, reflection listing the services", async () => {
    const response = await fetch(`${emulator.url}/iam/v2beta1/roles?name=owner`, {
      headers: { authorization: `Bearer ${emulator.token}` },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { roles: { name: string }[] };
    expect(body.roles.map((r) => r.name)).toEqual(["owner"]);

    // The same services as the emulator run from the sources: the bundle and its .proto files lost none.
    const services = await reflectedServices(new URL(emulator.url).host, emulator.token);
    const fromSources = await startEmulatorInProcess();
    try {
      expect(services).toEqual(await reflectedServices(new URL(fromSources.url).host, fromSources.token));
    } finally {
      await fromSources.close();
    }
    expect(services).toEqual(
      expect.arrayContaining([
        "chainguard.platform.iam.Groups",
        "chainguard.platform.iam.RoleBindings",
        "chainguard.platform.oidc.SecurityTokenService",
        "chainguard.platform.registry.Registry",
      ]),
    );
    // Its version is the release's (a bundle has no package.json above it to read it from).
    const printed = execFileSync(path.join(emulatorDir, emulatorCommand), ["--version"], {
      env: { PATH: noNodePath },
      encoding: "utf8",
    });
    expect(printed.trim()).toBe(version);
  });

  describe.each([
    { language: "python", env: (): Record<string, string> => ({ VIRTUAL_ENV: pythonEnvironment() }) },
    { language: "yaml", env: (): Record<string, string> => ({}) },
  ])("examples/$language on the linux-amd64 plugin archive", ({ language, env }) => {
    let stack: PulumiStack;
    let programDir: string;

    beforeAll(async () => {
      programDir = fs.mkdtempSync(path.join(scratch, `${language}-`));
      fs.cpSync(path.join(repoRoot, "examples", language), programDir, { recursive: true });
      stack = await PulumiStack.create({
        programDir,
        config: { organization: emulator.orgUid, "platform:apiUrl": emulator.url },
        secrets: { "platform:token": emulator.token },
        env: { ...env(), PATH: noNodePath },
      });
      await installPlugin(stack, path.join(release, `${plugin}-v${version}-linux-amd64.tar.gz`));
    });

    afterAll(() => tearDown(stack));

    test("the engine's environment has no node", async () => {
      const result = await stack.shell("command -v node || echo none");
      expect(result.stdout.trim()).toBe("none");
    });

    test("preview, up, refresh and destroy", async () => {
      const preview = await stack.preview({ expectNoChanges: false });
      expect(preview.stdout).toMatch(/\+ 9 to create/);

      const up = await stack.up();
      expect(up.stdout).toMatch(/\+ 9 created/);
      const outputs = await stack.outputs();
      const response = await fetch(
        `${emulator.url}/iam/v2beta1/groups/${String(outputs["engineeringUid"])}`,
        {
          headers: { authorization: `Bearer ${emulator.token}` },
        },
      );
      expect(response.status).toBe(200);
      expect(((await response.json()) as { name: string }).name).toBe("engineering");

      const refresh = await stack.run(["refresh", "--yes", "--skip-preview"]);
      expect(refresh.stdout).not.toMatch(/~ \d+ updated/);
      await stack.preview(); // --expect-no-changes

      const destroy = await stack.destroy();
      expect(destroy.stdout).toMatch(/- 9 deleted/);
      const gone = await fetch(`${emulator.url}/iam/v2beta1/groups/${String(outputs["engineeringUid"])}`, {
        headers: { authorization: `Bearer ${emulator.token}` },
      });
      expect(gone.status).toBe(404);
    });
  });

  describe("every archive carries its platform's official Node.js, unchanged", () => {
    const platforms = Object.keys(EXPECTED_FORMAT);

    test.each(platforms)(
      "%s: the plugin's and the emulator's node, and the launcher of its OS",
      (platform) => {
        const [runtime] = runtimes.nodeRuntimes([platform]);
        const official = fs.readFileSync(runtime!.binaryFile);
        const windows = platform.startsWith("windows");
        for (const command of [plugin, emulatorCommand]) {
          const dir = unpack(path.join(release, `${command}-v${version}-${platform}.tar.gz`), scratch);
          const node = path.join(dir, runtime!.binaryName);
          expect(binaryFormat(node)).toBe(EXPECTED_FORMAT[platform]);
          expect(fs.readFileSync(node).equals(official)).toBe(true);
          const launcher = path.join(dir, windows ? `${command}.cmd` : command);
          const text = fs.readFileSync(launcher, "utf8");
          if (windows) {
            expect(text).toContain(`"%~dp0node.exe" "%~dp0${command}.js" %*\r\n`);
            expect(peCertificateTableSize(node)).toBeGreaterThan(0);
          } else {
            expect(text.startsWith("#!/bin/sh\n")).toBe(true);
            expect(text).toContain(`exec "$here/node" "$here/${command}.js" "$@"`);
            expect(fs.statSync(launcher).mode & 0o777).toBe(0o755);
            expect(fs.statSync(node).mode & 0o777).toBe(0o755);
          }
        }
      },
    );

    test.each(platforms.filter((p) => p.startsWith("darwin")))(
      "%s: rcodesign verify accepts the signature of its node",
      (platform) => {
        const rcodesign = path.join(
          execFileSync("bash", [path.join(repoRoot, "scripts", "rcodesign.sh")], {
            encoding: "utf8",
            stdio: ["ignore", "pipe", "inherit"],
            timeout: 30 * 60_000,
          })
            .trim()
            .split("\n")
            .pop() ?? "",
          "rcodesign",
        );
        const dir = unpack(path.join(release, `${plugin}-v${version}-${platform}.tar.gz`), scratch);
        const verify = (file: string) =>
          spawnSync(rcodesign, ["verify", file], { encoding: "utf8", timeout: 300_000 }).status;
        expect(verify(path.join(dir, "node"))).toBe(0);
        // And it does check: one byte of the code changed, the signature no longer holds (what macOS refuses).
        const tampered = path.join(dir, "node-tampered");
        const bytes = fs.readFileSync(path.join(dir, "node"));
        bytes[1 << 20] = bytes[1 << 20]! ^ 0xff;
        fs.writeFileSync(tampered, bytes);
        expect(verify(tampered)).not.toBe(0);
      },
    );
  });
});

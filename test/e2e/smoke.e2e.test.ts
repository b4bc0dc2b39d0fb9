/**
 * Smoke test of the offline engine: the real `pulumi` CLI, our Node.js language host and @pulumi/pulumi's
 * dynamic-provider launcher run test/e2e/fixtures/smoke, a program with one dynamic resource whose provider is
 * an installed package (test/e2e/fixtures/smoke-provider). The provider writes a file on create and removes it
 * on delete, so each step checks that provider code really ran, not just that the CLI exited 0.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { installFakePackage, PulumiCommandError, PulumiStack } from "./harness";

// Here, not only in jest.e2e.config.js: when that config runs as one of several projects, jest ignores its
// testTimeout and falls back to 5 s, shorter than one `pulumi up`.
jest.setTimeout(300_000);

const programDir = "test/e2e/fixtures/smoke";
const greetingType = "pulumi-nodejs:dynamic/smoke:Greeting";
/** How the engine marks an encrypted secret in state (sig key and value of a secret). */
const secretSignature = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" };

describe("the offline Pulumi engine runs a dynamic provider from an installed package", () => {
  // Random per run: finding it anywhere in state would mean a plaintext leak, not a coincidence.
  const token = `smoke-token-${randomBytes(12).toString("hex")}`;
  let greetingDir: string;
  let stack: PulumiStack;

  beforeAll(async () => {
    installFakePackage(programDir, "test/e2e/fixtures/smoke-provider");
    greetingDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-platform-smoke-"));
    stack = await PulumiStack.create({
      programDir,
      config: { "smoke:directory": greetingDir },
      secrets: { "platform:token": token },
    });
  });

  afterAll(async () => {
    await stack?.cleanup();
    if (greetingDir) fs.rmSync(greetingDir, { recursive: true, force: true });
  });

  const greetingFile = () => path.join(greetingDir, "world.txt");

  async function greetingResource() {
    const { state, text } = await stack.exportState();
    const greeting = state.deployment.resources?.find((resource) => resource.type === greetingType);
    return { greeting, text };
  }

  it("up runs the provider's create", async () => {
    const result = await stack.up();

    expect(fs.readFileSync(greetingFile(), "utf8")).toBe("hello, world\n");
    expect(result.stdout).toMatch(/\+ 2 created/);
  });

  it("preview right after up expects no changes", async () => {
    await expect(stack.preview({ expectNoChanges: true })).resolves.toMatchObject({ exitCode: 0 });
  });

  it("stack outputs carry the provider's outputs and the secret round-trips", async () => {
    await expect(stack.outputs()).resolves.toEqual({
      message: "hello, world",
      path: greetingFile(),
      token,
    });
  });

  it("state holds the provider as a short require() and the token only encrypted", async () => {
    const { greeting, text } = await greetingResource();

    for (const serialized of [greeting?.inputs?.["__provider"], greeting?.outputs?.["__provider"]]) {
      expect(typeof serialized).toBe("string");
      expect(serialized).toContain('require("smoke-provider');
      expect(Buffer.byteLength(serialized as string)).toBeLessThan(1024);
    }
    expect(greeting?.outputs?.["token"]).toMatchObject(secretSignature);
    expect(text).not.toContain(token);
  });

  it("refresh reads the resource back through the provider without drift", async () => {
    fs.writeFileSync(greetingFile(), "changed out of band\n");

    await stack.refresh();

    const { greeting } = await greetingResource();
    expect(greeting?.outputs?.["message"]).toBe("changed out of band");
    // read() returned the inputs too, so the program's unchanged inputs show no phantom diff.
    await expect(stack.preview({ expectNoChanges: true })).resolves.toMatchObject({ exitCode: 0 });
  });

  it("destroy runs the provider's delete and empties the stack", async () => {
    await stack.destroy();

    expect(fs.existsSync(greetingFile())).toBe(false);
    const { greeting } = await greetingResource();
    expect(greeting).toBeUndefined();
  });

  it("a command that outlives its timeout is stopped and reported as timed out", async () => {
    const failure = await stack.preview({ timeoutMs: 200 }).then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(failure).toBeInstanceOf(PulumiCommandError);
    expect(failure).toMatchObject({ timedOut: true });
    expect((failure as PulumiCommandError).message).toMatch(
      /^`pulumi preview .*` \(stack e2e-\w+ .*\) timed out/,
    );
  });

  it("a failing program fails the command with the program's own error in the output", async () => {
    const unconfigured = await PulumiStack.create({ programDir, secrets: { "platform:token": token } });
    try {
      const failure = await unconfigured.up().then(
        () => undefined,
        (error: unknown) => error,
      );

      expect(failure).toBeInstanceOf(PulumiCommandError);
      expect((failure as PulumiCommandError).message).toContain("smoke:directory");
      expect((failure as PulumiCommandError).message).not.toContain(token);
    } finally {
      await unconfigured.cleanup();
    }
  });
});

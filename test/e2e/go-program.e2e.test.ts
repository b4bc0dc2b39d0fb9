/**
 * Our Go language host (scripts/engine/langhost/cmd/pulumi-language-go) under the real engine: it builds test/e2e/fixtures/go-smoke
 * with `go build` and runs it with the variables the Go SDK reads. The program echoes config, a secret, the
 * project, stack and organization as stack outputs, so each output checks one variable the host must set; a
 * program error must reach the user once, as the Go SDK logged it (the host turns exit code 32 into a bail).
 */
import { PulumiStack } from "./harness";

// Here, not only in jest.e2e.config.js: jest ignores a project's testTimeout when several projects run.
jest.setTimeout(300_000);

describe("the Go language host runs a Go program", () => {
  let stack: PulumiStack;

  beforeAll(async () => {
    stack = await PulumiStack.create({
      programDir: "test/e2e/fixtures/go-smoke",
      config: { greeting: "hello from go" },
      secrets: { token: "go-smoke-secret" },
    });
  });

  afterAll(async () => {
    await stack?.cleanup();
  });

  test("up passes config, secrets, project, stack and organization to the program", async () => {
    await stack.up();

    expect(await stack.outputs()).toEqual({
      greeting: "hello from go",
      token: "go-smoke-secret",
      project: "go-smoke",
      stack: stack.name,
      organization: "organization", // the file backend's
    });
    const { text } = await stack.exportState();
    expect(text).not.toContain("go-smoke-secret");
  });

  test("a second preview of the same program changes nothing", async () => {
    await stack.preview();
  });

  test("a program error is reported once, as the program logged it", async () => {
    await stack.setConfig("fail", "true");
    const result = await stack.up({ allowFailure: true });
    await stack.run(["config", "rm", "fail"]);

    expect(result.exitCode).not.toBe(0);
    const output = result.stdout + result.stderr;
    expect(output).toContain("go-smoke was asked to fail");
    expect(output).not.toContain("non-zero exit code");
  });

  test("destroy empties the stack", async () => {
    await stack.destroy();
    const { state } = await stack.exportState();
    expect(state.deployment.resources ?? []).toEqual([]);
  });
});

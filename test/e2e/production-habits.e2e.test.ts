/**
 * The service's production habits under the real engine: an `up` of the quick start converges in one run when the service behaves as in
 * production.
 *
 *   1. Propagation delay: the emulator makes new groups, roles and bindings effective only seconds after their
 *      creation (the quick start's bindings go on folders and name a role created in the same run, so they meet
 *      404s). One `up` still creates everything, because the provider retries what propagation explains; with the
 *      retries turned off (PLATFORM_PROPAGATION_WINDOW_MS=0) the same `up` fails, so the first result is the
 *      retries' doing, not luck.
 *   2. A workload identity (`platform:identity` and `platform:identityTokenFile`): an `up` exchanges the OIDC token
 *      once per process that talks to the API (the provider, and the program for its data sources) and reuses the
 *      API token for every request, instead of once per request; the state holds neither the OIDC token nor an API
 *      token.
 *   3. A token that expires mid-run: a workload identity's exchanged token lives one hour; an advanceClock fault
 *      moves the emulator clock two hours forward just before the first binding is created, so the provider's token
 *      is expired at that step (its own clock has not moved: it learns it from the 401). The step is not failed: the
 *      provider exchanges again and repeats it. The OIDC token file outlives the jump, as a CI platform's refreshed
 *      file would.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator";
import { tearDown, installLocalPackage, PulumiStack, repoRoot } from "./harness";

jest.setTimeout(300_000);

const quickstartDir = "examples/quickstart";
const seedFile = path.join(repoRoot, quickstartDir, "seed.json");
const OWNER_ROLE_UID = createHash("sha1").update("owner").digest("hex");
const PROPAGATION_DELAY_MS = 3_000;
const HOUR = 3600_000;

beforeAll(() => {
  installLocalPackage(quickstartDir, { build: false });
});

describe("propagation delay", () => {
  let emulator: Emulator;
  const stacks: PulumiStack[] = [];

  beforeAll(async () => {
    emulator = await startEmulator({ seed: seedFile, propagationDelayMs: PROPAGATION_DELAY_MS });
  });

  afterAll(async () => {
    for (const stack of stacks) {
      await stack.destroy({ allowFailure: true });
      await stack.cleanup();
    }
    await emulator?.close();
  });

  const newStack = async (): Promise<PulumiStack> => {
    const stack = await PulumiStack.create({
      programDir: ".", // the root Pulumi.yaml; its `main` is examples/quickstart
      config: { organization: emulator.orgUid, "platform:apiUrl": emulator.url },
      secrets: { "platform:token": emulator.token },
    });
    stacks.push(stack);
    return stack;
  };

  it("one up creates everything: the bindings' 404s are retried until the folders and role are effective", async () => {
    const stack = await newStack();
    emulator.clearRequestLog();
    const up = await stack.up();
    expect(up.stdout).toMatch(/\+ 7 created/);
    const outputs = await stack.outputs();
    const bindingCreates = emulator
      .requestLog()
      .filter((r) => r.method === "POST" && r.path.startsWith("/iam/v2beta1/roleBindings/"));
    const refused = bindingCreates.filter((r) => r.status === 404).length;
    process.stdout.write(
      `propagation delay ${PROPAGATION_DELAY_MS} ms: ${refused} binding creates refused, then 2 created, ` +
        `in one up of ${up.durationMs} ms\n`,
    );
    // The delay was met (so the retries were needed), and overcome.
    expect(refused).toBeGreaterThan(0);
    expect(bindingCreates.filter((r) => r.status === 200)).toHaveLength(2);
    const bindings = await emulator.client.roleBindings
      .list({ identity: outputs["ciIdentityUid"] as string })
      .all();
    expect(bindings).toHaveLength(2);
    await stack.preview({ expectNoChanges: true });
  });

  it("without the retries (PLATFORM_PROPAGATION_WINDOW_MS=0) the same up fails on the bindings", async () => {
    const stack = await newStack();
    const up = await stack.up({ env: { PLATFORM_PROPAGATION_WINDOW_MS: "0" }, allowFailure: true });
    expect(up.exitCode).not.toBe(0);
    expect(`${up.stdout}\n${up.stderr}`).toMatch(/Could not create platform:iam:RoleBinding .*Not found/);
  });
});

/**
 * A stack of the quick start run by a workload identity of the organization bound owner, assumable with the
 * emulator's OIDC tokens for subject "ci": its token file holds one valid a day (a CI platform's, refreshed by its
 * runner, outlives any clock jump here). Removed, with the emulator, after the describe block that calls it.
 */
function workloadIdentityStack(): {
  emulator: () => Emulator;
  stack: () => PulumiStack;
  oidcToken: () => string;
} {
  let emulator: Emulator;
  let stack: PulumiStack;
  let dir: string;
  let oidcToken: string;

  beforeAll(async () => {
    emulator = await startEmulator({ seed: seedFile });
    const identity = await emulator.client.identities.create(emulator.orgUid, {
      name: "deployer-ci",
      claimMatch: { issuer: `${emulator.url}/oidc`, subject: "ci" },
    });
    await emulator.client.roleBindings.create(emulator.orgUid, {
      identityUid: identity.uid,
      roleUid: OWNER_ROLE_UID,
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-platform-oidc-"));
    oidcToken = await emulator.mintIdToken({ subject: "ci", expiresInSeconds: 24 * 3600 });
    fs.writeFileSync(path.join(dir, "token"), oidcToken);
    stack = await PulumiStack.create({
      programDir: ".",
      config: {
        organization: emulator.orgUid,
        "platform:apiUrl": emulator.url,
        "platform:identity": identity.uid,
        "platform:identityTokenFile": path.join(dir, "token"),
      },
    });
  });

  afterAll(async () => {
    await tearDown(stack, emulator);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  return { emulator: () => emulator, stack: () => stack, oidcToken: () => oidcToken };
}

describe("a workload identity", () => {
  const run = workloadIdentityStack();

  it("exchanges its token once per process for a whole up, however many requests", async () => {
    const emulator = run.emulator();
    emulator.clearRequestLog();
    await run.stack().up();
    const log = emulator.requestLog();
    const exchanges = log.filter((r) => r.path === "/sts/exchange").length;
    const apiRequests = log.filter(
      (r) => r.path !== "/sts/exchange" && !r.path.startsWith("/_emulator"),
    ).length;
    process.stdout.write(
      `token exchange: ${exchanges} exchanges for ${apiRequests} API requests in one up\n`,
    );
    expect(apiRequests).toBeGreaterThanOrEqual(9); // 6 creates, and the lists of getRole, getRepos, getAdvisories
    // The provider process, and the program process (getRole, getRepos, getAdvisories): one each at most.
    expect(exchanges).toBeGreaterThanOrEqual(1);
    expect(exchanges).toBeLessThanOrEqual(2);

    const { text } = await run.stack().exportState();
    expect(text).not.toContain(run.oidcToken());
  });
});

describe("a token that expires mid-run", () => {
  const run = workloadIdentityStack();

  it("the clock jumps two hours before the first binding: the provider exchanges again and no step fails", async () => {
    const emulator = run.emulator();
    const stack = run.stack();
    emulator.clearRequestLog();
    const before = emulator.clock.now().getTime();
    emulator.faults.add({
      method: "POST",
      path: "^/iam/v2beta1/roleBindings/",
      action: "advanceClock",
      advanceMs: 2 * HOUR,
      times: 1,
    });
    const up = await stack.up();
    expect(up.stdout).toMatch(/\+ 7 created/);
    expect(emulator.clock.now().getTime() - before).toBeGreaterThanOrEqual(2 * HOUR);

    const log = emulator.requestLog();
    const bindingCreates = log.filter(
      (r) => r.method === "POST" && r.path.startsWith("/iam/v2beta1/roleBindings/"),
    );
    // The steps that met the expired token were refused (16) and repeated with a new token: the first binding,
    // and the second too when it was in flight at the same moment with the same token (the engine runs them in
    // parallel). Each binding was created exactly once.
    const refused = bindingCreates.filter((r) => r.status === 401).length;
    expect(refused).toBeGreaterThanOrEqual(1);
    expect(refused).toBeLessThanOrEqual(2);
    expect(bindingCreates.filter((r) => r.status === 200)).toHaveLength(2);
    const exchanges = log.filter((r) => r.path === "/sts/exchange");
    expect(exchanges.every((r) => r.status === 200)).toBe(true);
    const firstRefusal = log.findIndex((r) => r.status === 401);
    expect(log.slice(firstRefusal).some((r) => r.path === "/sts/exchange")).toBe(true);
    process.stdout.write(
      `token expiry mid-run: ${exchanges.length} exchanges, ${refused} refused step(s) repeated, in one up of ${up.durationMs} ms\n`,
    );
    await stack.preview({ expectNoChanges: true });
  });
});

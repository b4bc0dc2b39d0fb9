/**
 * A workload identity under the real engine: `pulumi up` of the quick start with `platform:identity` and
 * `platform:identityTokenFile` exchanges the OIDC token once per process that talks to the API (the provider,
 * and the program for its data sources) and reuses the API token for every request, instead of once per request.
 * The state holds neither the OIDC token nor an API token.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator";
import { installLocalPackage, PulumiStack, repoRoot } from "./harness";

jest.setTimeout(300_000);

const OWNER_ROLE_UID = createHash("sha1").update("owner").digest("hex");

describe("token exchange under the real engine", () => {
  let emulator: Emulator;
  let stack: PulumiStack;
  let dir: string;
  let oidcToken: string;

  beforeAll(async () => {
    installLocalPackage("examples/quickstart", { build: false });
    emulator = await startEmulator({ seed: path.join(repoRoot, "examples/quickstart/seed.json") });
    // A CI identity in the organization, assumable with the emulator's OIDC tokens for subject "ci", bound owner.
    const identity = await emulator.client.identities.create(emulator.orgUid, {
      name: "deployer-ci",
      claimMatch: { issuer: `${emulator.url}/oidc`, subject: "ci" },
    });
    await emulator.client.roleBindings.create(emulator.orgUid, {
      identityUid: identity.uid,
      roleUid: OWNER_ROLE_UID,
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-platform-oidc-"));
    oidcToken = await emulator.mintIdToken({ subject: "ci" });
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
    await stack?.destroy({ allowFailure: true });
    await stack?.cleanup();
    await emulator?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("one exchange per process for a whole up, however many requests", async () => {
    emulator.clearRequestLog();
    await stack.up();
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

    const { text } = await stack.exportState();
    expect(text).not.toContain(oidcToken);
  });
});

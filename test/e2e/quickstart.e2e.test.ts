/**
 * The quick start (root Pulumi.yaml, program examples/quickstart) under the real engine, against an in-process
 * emulator, with the package installed into the program as a user would have it (scripts/install-local.sh).
 *
 * One stack goes through the life of a real project, in order: up from empty -> no-change preview -> state
 * checks (no token, small serialized provider) -> changes made outside Pulumi, seen by refresh and undone by up
 * -> a change of program (the quick start with QUICKSTART_CHANGES, in fixtures/quickstart-changed) that must cause
 * exactly the expected API calls -> destroy,
 * which must leave the organization exactly as it was. Separately: invalid arguments fail at preview with no API
 * call at all (fixtures/quickstart-invalid).
 */
import * as fs from "node:fs";
import * as path from "node:path";

import { startEmulator, type Emulator, type LoggedRequest } from "../../emulator";
import type { PlatformClient } from "../../sdk";
import { installLocalPackage, PulumiCommandError, PulumiStack, repoRoot, type StackState } from "./harness";

const quickstartDir = "examples/quickstart";
const changedDir = "test/e2e/fixtures/quickstart-changed";
const invalidDir = "test/e2e/fixtures/quickstart-invalid";
const seedFile = path.join(repoRoot, quickstartDir, "seed.json");
const dynamicIam = "pulumi-nodejs:dynamic/iam:";

/**
 * The change of program, made to examples/quickstart/index.ts at test time (so the changed program cannot drift from
 * the quick start): (1) the "engineering" folder renamed "product-engineering" -> one PATCH, updateMask=name;
 * (2) "operations" moved under engineering (its parentUid changes) -> replaced: the new folder created, its binding
 * re-created on it, then the old binding and the old folder deleted; (3) a new binding, CI viewer on engineering ->
 * one POST. Everything else is the quick start under the same logical names, so nothing else may change.
 */
const QUICKSTART_CHANGES: [from: string, to: string][] = [
  ['  name: "engineering",', '  name: "product-engineering",'],
  [
    'new platform.iam.Group("operations", {\n  parentUid: organization,',
    'new platform.iam.Group("operations", {\n  parentUid: engineering.uid,',
  ],
  [
    "\n// What the organization's registry",
    '\nconst ciViewsEngineering = new platform.iam.RoleBinding("ci-views-engineering", {\n' +
      "  groupUid: engineering.uid,\n  identityUid: ci.uid,\n  roleUid: viewer.uid,\n});\n" +
      "\n// What the organization's registry",
  ],
  [
    "export const bindings = [ciDeploysEngineering.uid, ciViewsOperations.uid];",
    "export const bindings = [ciDeploysEngineering.uid, ciViewsOperations.uid, ciViewsEngineering.uid];",
  ],
];

/** Writes the quick start with QUICKSTART_CHANGES as fixtures/quickstart-changed/index.ts. */
function writeChangedQuickstart(): void {
  let program = fs.readFileSync(path.join(repoRoot, quickstartDir, "index.ts"), "utf8");
  for (const [from, to] of QUICKSTART_CHANGES) {
    // Each change finds its place exactly once: else the quick start changed under this test, which says where.
    if (program.split(from).length !== 2)
      throw new Error(`the quick start has no single ${JSON.stringify(from)}`);
    program = program.replace(from, to);
  }
  fs.writeFileSync(path.join(repoRoot, changedDir, "index.ts"), program);
}

// Each step runs one or more CLI commands of several seconds; jest's project-level testTimeout is not applied
// when the suite runs under the root config's `projects`.
jest.setTimeout(300_000);

/** Figures for the report, printed once at the end. */
const figures: Record<string, string> = {};

/** Everything the organization holds, as the API returns it (order-independent). */
async function organizationContents(client: PlatformClient, orgUid: string) {
  const byUid = <T extends { uid: string }>(items: T[]) =>
    [...items].sort((a, b) => a.uid.localeCompare(b.uid));
  const under = { descendantsOf: orgUid };
  const [
    organization,
    groups,
    identities,
    roles,
    roleBindings,
    identityProviders,
    groupInvites,
    repos,
    advisories,
  ] = await Promise.all([
    client.groups.get(orgUid),
    client.groups.list(under).all(),
    client.identities.list(under).all(),
    client.roles.list(under).all(),
    client.roleBindings.list(under).all(),
    client.identityProviders.list(under).all(),
    client.groupInvites.list(under).all(),
    client.repos.list(under).all(),
    client.advisories.list(under).all(),
  ]);
  return {
    organization,
    groups: byUid(groups),
    identities: byUid(identities),
    roles: byUid(roles),
    roleBindings: byUid(roleBindings),
    identityProviders: byUid(identityProviders),
    groupInvites: byUid(groupInvites),
    repos: byUid(repos),
    advisories: [...advisories].sort((a, b) => String(a.advisoryId).localeCompare(String(b.advisoryId))),
  };
}

const isMutation = (request: LoggedRequest) => request.method !== "GET" && request.method !== "HEAD";
const describeCall = (request: LoggedRequest) => {
  const mask = request.query["updateMask"];
  return `${request.method} ${request.path}${mask === undefined ? "" : ` updateMask=${String(mask)}`}`;
};

function resourcesOf(state: StackState) {
  return (state.deployment.resources ?? []).filter((resource) => resource.type.startsWith(dynamicIam));
}
function resourceNamed(state: StackState, type: string, name: string) {
  return resourcesOf(state).find((r) => r.type === `${dynamicIam}${type}` && r.urn.endsWith(`::${name}`));
}

describe("the quick start under the real engine", () => {
  let emulator: Emulator;
  let stack: PulumiStack;
  let before: Awaited<ReturnType<typeof organizationContents>>;

  beforeAll(async () => {
    installLocalPackage(quickstartDir, { build: false });
    writeChangedQuickstart();
    installLocalPackage(changedDir, { build: false });
    emulator = await startEmulator({ seed: seedFile });
    before = await organizationContents(emulator.client, emulator.orgUid);
    stack = await PulumiStack.create({
      programDir: ".", // the root Pulumi.yaml; its `main` is examples/quickstart
      config: { organization: emulator.orgUid, "platform:apiUrl": emulator.url },
      secrets: { "platform:token": emulator.token },
    });
  });

  afterAll(async () => {
    await stack?.cleanup();
    await emulator?.close();
    fs.rmSync(path.join(repoRoot, changedDir, "index.ts"), { force: true });
    if (Object.keys(figures).length > 0) {
      console.info(
        Object.entries(figures)
          .map(([k, v]) => `${k}: ${v}`)
          .join("\n"),
      );
    }
  });

  it("up from empty creates the folders, identity, role and bindings, and preview then expects no changes", async () => {
    emulator.clearRequestLog();
    const up = await stack.up();
    figures["pulumi up of the quick start from empty"] = `${up.durationMs} ms`;

    expect(up.stdout).toMatch(/\+ 7 created/);
    const outputs = await stack.outputs();
    const org = emulator.orgUid;
    expect(org).toMatch(/^[0-9a-f]{40}$/); // a real organization's uid shape: 40 hex, like a built-in role's
    expect(outputs).toMatchObject({
      engineeringUid: expect.stringMatching(new RegExp(`^${org}/[0-9a-f]{16}$`)),
      operationsUid: expect.stringMatching(new RegExp(`^${org}/[0-9a-f]{16}$`)),
      ciIdentityUid: expect.stringMatching(new RegExp(`^${org}/[0-9a-f]{16}$`)),
      deployerRoleUid: expect.stringMatching(new RegExp(`^${org}/[0-9a-f]{16}$`)),
      viewerRoleUid: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    expect(outputs["repoNames"]).toEqual(["nginx", "node", "python"]);
    expect(outputs["advisoryIds"]).toEqual(["CGA-2026-0001", "CGA-2026-0002"]);
    // getEffectiveAccess: what CI holds on engineering, and through which role.
    expect(outputs["ciAccessOnEngineering"]).toEqual([
      "CAP_IAM_GROUPS_LIST via deployer",
      "CAP_REPO_LIST via deployer",
      "CAP_TAG_LIST via deployer",
    ]);

    // What the API now holds is what the program says.
    const client = emulator.client;
    const engineering = await client.groups.get(outputs["engineeringUid"] as string);
    expect(engineering).toMatchObject({ name: "engineering", description: "Product engineering" });
    const bindings = await client.roleBindings.list({ identity: outputs["ciIdentityUid"] as string }).all();
    expect(bindings.map((b) => [b.group?.uid, b.role?.uid]).sort()).toEqual(
      [
        [outputs["engineeringUid"], outputs["deployerRoleUid"]],
        [outputs["operationsUid"], outputs["viewerRoleUid"]],
      ].sort(),
    );
    // 2 folders + 1 identity + 1 role + 2 bindings, nothing else.
    expect(emulator.requestLog().filter(isMutation).map(describeCall)).toHaveLength(6);

    await expect(stack.preview({ expectNoChanges: true })).resolves.toMatchObject({ exitCode: 0 });
  });

  it("state holds no plaintext token, and a serialized provider under 1 KB per resource", async () => {
    const { state, text } = await stack.exportState();
    const stackConfig = fs.readFileSync(path.join(repoRoot, `Pulumi.${stack.name}.yaml`), "utf8");

    expect(text).not.toContain(emulator.token);
    expect(stackConfig).not.toContain(emulator.token);

    const resources = resourcesOf(state);
    expect(resources).toHaveLength(6);
    const sizes = resources.flatMap((resource) =>
      [resource.inputs?.["__provider"], resource.outputs?.["__provider"]].map((serialized) => {
        expect(typeof serialized).toBe("string");
        expect(serialized).toContain('require("pulumi-platform/');
        return Buffer.byteLength(serialized as string);
      }),
    );
    const largest = Math.max(...sizes);
    expect(largest).toBeLessThan(1024);
    figures["serialized provider per resource"] =
      `${Math.min(...sizes)}-${largest} bytes, twice (inputs, outputs)`;
  });

  it("a newer installed version of the package is picked up without replacing or updating anything", async () => {
    // What state stores per resource is a require() of the installed package, so upgrading it changes no
    // resource. Simulate an upgrade in place: a new version number and changed provider code.
    const installed = path.join(repoRoot, quickstartDir, "node_modules", "pulumi-platform");
    const manifestPath = path.join(installed, "package.json");
    const manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8")) as { version: string };
    manifest.version = "99.0.0";
    fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
    const groupProvider = path.join(installed, "dist", "provider", "iam", "group.provider.js");
    fs.appendFileSync(groupProvider, "\n// a later release's provider code\n");
    try {
      await expect(stack.preview({ expectNoChanges: true })).resolves.toMatchObject({ exitCode: 0 });
    } finally {
      installLocalPackage(quickstartDir, { build: false });
    }
  });

  // Pulumi gives the dynamic providers' default provider (`pulumi:providers:pulumi-nodejs`) the whole stack config
  // as its inputs and records them, secrets encrypted, like any provider's config. So a token set as secret
  // config has exactly one copy in the state: encrypted, in that entry. No resource of ours may hold it.
  it("a token from secret config is only in the default provider's encrypted config, in no resource", async () => {
    const shown = await stack.run(["stack", "export", "--show-secrets"]);
    const state = JSON.parse(shown.stdout) as StackState;

    const holding = (state.deployment.resources ?? [])
      .filter((resource) => JSON.stringify(resource).includes(emulator.token))
      .map((resource) => resource.type);
    expect(holding).toEqual(["pulumi:providers:pulumi-nodejs"]);
  });

  it("refresh sees a description changed and an identity deleted outside Pulumi; up restores both", async () => {
    const client = emulator.client;
    const outputs = await stack.outputs();
    const engineeringUid = outputs["engineeringUid"] as string;
    const ciUid = outputs["ciIdentityUid"] as string;
    await client.groups.update(engineeringUid, { description: "changed by hand" });
    await client.identities.delete(ciUid); // the emulator deletes the identity's two bindings with it

    const refresh = await stack.refresh();

    expect(refresh.stdout).toMatch(/~ +pulumi-nodejs:dynamic\/iam:Group engineering/);
    expect(refresh.stdout).toMatch(/- +pulumi-nodejs:dynamic\/iam:Identity ci /);
    const { state } = await stack.exportState();
    expect(resourceNamed(state, "Group", "engineering")?.outputs?.["description"]).toBe("changed by hand");
    expect(resourceNamed(state, "Identity", "ci")).toBeUndefined();
    // Its bindings went with it (the API deletes them with the identity), so refresh dropped them too.
    expect(resourceNamed(state, "RoleBinding", "ci-deploys-engineering")).toBeUndefined();
    expect(resourceNamed(state, "RoleBinding", "ci-views-operations")).toBeUndefined();

    await stack.up();

    expect(await client.groups.get(engineeringUid)).toMatchObject({ description: "Product engineering" });
    const identities = await client.identities
      .list({ childrenOf: emulator.orgUid, name: "github-actions-deployer" })
      .all();
    expect(identities).toHaveLength(1);
    const restored = identities[0]!;
    expect(restored.uid).not.toBe(ciUid);
    expect(restored.claimMatch).toMatchObject({ issuer: "https://token.actions.githubusercontent.com" });
    expect(await client.roleBindings.list({ identity: restored.uid }).all()).toHaveLength(2);
    await expect(stack.preview({ expectNoChanges: true })).resolves.toMatchObject({ exitCode: 0 });
  });

  it("a change of program makes exactly the API calls it needs: a rename, a new binding, a folder moved", async () => {
    const client = emulator.client;
    const old = await stack.outputs();
    const engineeringUid = old["engineeringUid"] as string;
    const oldOperationsUid = old["operationsUid"] as string;
    const oldBindings = old["bindings"] as string[];
    const oldOperationsBinding = oldBindings[1]!;
    emulator.clearRequestLog();

    await stack.run([
      "up",
      "--yes",
      "--skip-preview",
      "--cwd",
      path.join(repoRoot, changedDir),
      "--config-file",
      path.join(repoRoot, `Pulumi.${stack.name}.yaml`),
    ]);

    const now = await stack.outputs();
    const newOperationsUid = now["operationsUid"] as string;
    const [, newOperationsBinding, newEngineeringBinding] = now["bindings"] as string[];
    expect(newOperationsUid).toMatch(new RegExp(`^${engineeringUid}/[0-9a-f]{16}$`));

    const calls = emulator.requestLog().filter(isMutation).map(describeCall);
    expect([...calls].sort()).toEqual(
      [
        `PATCH /iam/v2beta1/groups/${engineeringUid} updateMask=name`,
        `POST /iam/v2beta1/roleBindings/${engineeringUid}`, // the new binding
        `POST /iam/v2beta1/groups/${engineeringUid}`, // the moved folder, created first...
        `POST /iam/v2beta1/roleBindings/${newOperationsUid}`, // ...its binding re-created on it...
        `DELETE /iam/v2beta1/roleBindings/${oldOperationsBinding}`, // ...the old binding removed...
        `DELETE /iam/v2beta1/groups/${oldOperationsUid}`, // ...then the old folder
      ].sort(),
    );
    const at = (call: string) => calls.indexOf(call);
    expect(at(`POST /iam/v2beta1/groups/${engineeringUid}`)).toBeLessThan(
      at(`DELETE /iam/v2beta1/groups/${oldOperationsUid}`),
    );
    expect(at(`DELETE /iam/v2beta1/roleBindings/${oldOperationsBinding}`)).toBeLessThan(
      at(`DELETE /iam/v2beta1/groups/${oldOperationsUid}`),
    );

    // The end state, through the API.
    expect(await client.groups.get(engineeringUid)).toMatchObject({ name: "product-engineering" });
    expect(await client.groups.get(newOperationsUid)).toMatchObject({ name: "operations" });
    await expect(client.groups.get(oldOperationsUid)).rejects.toMatchObject({ name: "NotFoundError" });
    const ciUid = now["ciIdentityUid"] as string;
    const bindings = await client.roleBindings.list({ identity: ciUid }).all();
    expect(bindings.map((b) => [b.uid, b.group?.uid, b.role?.uid]).sort()).toEqual(
      [
        [oldBindings[0], engineeringUid, now["deployerRoleUid"]],
        [newOperationsBinding, newOperationsUid, now["viewerRoleUid"]],
        [newEngineeringBinding, engineeringUid, now["viewerRoleUid"]],
      ].sort(),
    );
  });

  it("destroy leaves the organization exactly as it was before the first up", async () => {
    await stack.destroy();

    expect(await organizationContents(emulator.client, emulator.orgUid)).toEqual(before);
    const { state } = await stack.exportState();
    expect(resourcesOf(state)).toEqual([]);
  });
});

describe("invalid arguments fail at preview, naming the field, before any write", () => {
  let emulator: Emulator;

  beforeAll(async () => {
    installLocalPackage(invalidDir, { build: false });
    emulator = await startEmulator();
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it.each([
    ["groupName", /property name value \{Engineering\} has a problem: name must match \^\[a-z0-9 \._-\]/],
    ["parentUid", /property parentUid value \{not-a-group-uid\} has a problem: must be a uid/],
  ])("%s", async (invalidCase, rule) => {
    const stack = await PulumiStack.create({
      programDir: invalidDir,
      config: {
        "invalid:organization": emulator.orgUid,
        "invalid:case": invalidCase,
        "platform:apiUrl": emulator.url,
      },
      secrets: { "platform:token": emulator.token },
    });
    try {
      emulator.clearRequestLog();
      const failure = await stack.preview({ expectNoChanges: false }).then(
        () => undefined,
        (error: unknown) => error,
      );

      expect(failure).toBeInstanceOf(PulumiCommandError);
      const output =
        (failure as PulumiCommandError).result.stdout + (failure as PulumiCommandError).result.stderr;
      expect(output).toMatch(rule);
      expect(output).not.toContain(emulator.token);
      // Nothing but the access review's reads of the valid resources' live facts (docs/guide.md, "Preflight"):
      // at most one list of groups, roles and role bindings each.
      const calls = emulator.requestLog().map((r) => `${r.method} ${r.path}`);
      expect(calls.filter((c) => !/^GET \/iam\/v2beta1\/(groups|roles|roleBindings)$/.test(c))).toEqual([]);
      expect(new Set(calls).size).toBe(calls.length);
    } finally {
      await stack.cleanup();
    }
  });
});

describe("an identity provider, a group invite and an account association under the real engine", () => {
  const accessDir = "examples/access";
  const clientSecret = `client-secret-${Date.now().toString(36)}`;
  let emulator: Emulator;
  let stack: PulumiStack;
  let before: Awaited<ReturnType<typeof organizationContents>>;

  beforeAll(async () => {
    installLocalPackage(accessDir, { build: false });
    emulator = await startEmulator();
    before = await organizationContents(emulator.client, emulator.orgUid);
    // Credentials from the environment this time, as a CI job would pass them: then not even an encrypted
    // copy of the token reaches the state.
    stack = await PulumiStack.create({
      programDir: accessDir,
      config: { "access:organization": emulator.orgUid },
      secrets: { "access:clientSecret": clientSecret },
      env: { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: emulator.token },
    });
  });
  afterAll(async () => {
    await stack?.cleanup();
    await emulator?.close();
  });

  it("up, no-change preview, refresh keeping the invite code and client secret without a diff, destroy", async () => {
    const client = emulator.client;
    await stack.up();
    const created = await stack.outputs();
    expect(created["clientSecret"]).toBe(clientSecret);
    expect(created["inviteCode"]).toEqual(expect.any(String));
    expect((created["inviteCode"] as string).length).toBeGreaterThan(0);
    const partnersUid = created["partnersUid"] as string;
    expect(await client.identityProviders.get(created["identityProviderUid"] as string)).toMatchObject({
      name: "corporate-sso",
      oidc: { issuer: "https://login.example.com", clientId: "platform-console" },
    });
    expect(await client.groupInvites.list({ childrenOf: partnersUid }).all()).toHaveLength(1);
    expect(await client.accountAssociations.get(partnersUid)).toMatchObject({
      name: "partners-aws",
      amazon: { account: "123456789012" },
    });
    // The secret values are stored encrypted only; the token, given through the environment, not at all.
    const { text } = await stack.exportState();
    expect(text).not.toContain(clientSecret);
    expect(text).not.toContain(created["inviteCode"] as string);
    const shown = await stack.run(["stack", "export", "--show-secrets"]);
    expect(shown.stdout).toContain(clientSecret);
    expect(shown.stdout).not.toContain(emulator.token);

    await expect(stack.preview({ expectNoChanges: true })).resolves.toMatchObject({ exitCode: 0 });

    // The API returns neither the code nor the secret; refresh must keep both and see no change.
    await stack.run(["refresh", "--yes", "--expect-no-changes"]);
    expect(await stack.outputs()).toEqual(created);
    await expect(stack.preview({ expectNoChanges: true })).resolves.toMatchObject({ exitCode: 0 });

    await stack.destroy();
    expect(await organizationContents(client, emulator.orgUid)).toEqual(before);
  });
});

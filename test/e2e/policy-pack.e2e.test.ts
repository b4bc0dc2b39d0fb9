/**
 * The policy pack (policy/, docs/policy-pack.md) under the real engine: `pulumi preview --policy-pack policy`, run
 * by our Node.js language host's RunPlugin, offline, against an in-process emulator. For each front, one program
 * breaks every rule once and must fail the preview with one line per violation (mandatory rules) and a warning
 * (the advisory one); the same program with the violations fixed must pass, and its `up` (where the uids unknown
 * at preview are known and every rule runs again) too.
 *
 * Fronts: TypeScript on the dynamic resources (fixtures/policy, config `variant`), a YAML program and a Python
 * program on the native plugin, written per variant by yamlProgram() and pythonProgram() below (Python previews
 * only: its `up` is the YAML one's, through the same plugin).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { startEmulator, type Emulator } from "../../emulator";
import { tearDown, installLocalPackage, PulumiStack, repoRoot, type CommandResult } from "./harness";
import { buildPluginTarball, installPlugin } from "./plugin-tarball";
import { pythonEnvironment } from "./python-env";

const { bundlePolicy } = require("../../scripts/build-policy.js") as { bundlePolicy: () => Promise<string> };

jest.setTimeout(600_000);

const policyPack = path.join(repoRoot, "policy");

/** Every line a violating program must produce: [rule, resource, text the line must hold]. */
const VIOLATIONS: Array<[string, string, string]> = [
  [
    "identity-subject-pinned",
    'Identity "ci"',
    "claimMatch.subjectPattern 'repo:acme/.*' matches the subjects of more than one repository",
  ],
  ["identity-audience-required", 'Identity "ci"', "claimMatch has no audience"],
  ["identity-issuer-pattern-single-host", 'Identity "federated"', "matches issuers on more than one host"],
  ["static-keys-max-lifetime", 'Identity "keys"', "staticKeys.expirationTime"],
  ["workload-identity-not-owner-at-root", 'RoleBinding "ci-owner"', "roleUid is the built-in owner role"],
  ["workload-identity-no-self-granting-role", 'RoleBinding "ci-escalator"', "grant itself any role"],
  ["group-invite-bounded", 'GroupInvite "invite"', "email is not set"],
  ["group-invite-bounded", 'GroupInvite "invite"', "ttl '720h' is longer than 7 days"],
  ["group-invite-bounded", 'GroupInvite "invite"', "roleUid '"],
  ["identity-provider-default-role-not-owner", 'IdentityProvider "sso"', "defaultRole '"],
  ["identity-unused", 'Identity "keys"', "no role binding in this stack uses it"],
  [
    "workload-identity-privileged",
    'RoleBinding "ci-escalator"',
    'roleUid gives workload Identity "ci" the privileged capabilities CAP_IAM_ROLES_UPDATE, CAP_IAM_ROLE_BINDINGS_CREATE on Group "deploy" (through Role "escalator")',
  ],
  ["workload-identity-privileged", 'RoleBinding "ci-owner"', "(through built-in role owner)"],
  [
    "workload-identity-no-takeover",
    'RoleBinding "ops-identities"',
    'roleUid gives workload Identity "ops" CAP_IAM_IDENTITY_UPDATE on group ',
  ],
  ["workload-identity-no-takeover", 'RoleBinding "ops-identities"', ', where Identity "ci" lives: '],
];

function expectViolations(result: CommandResult): void {
  const output = result.stdout + result.stderr;
  for (const [rule, resource, text] of VIOLATIONS) {
    const line = output.split("\n").find((l) => l.includes(`[${rule}] ${resource}: `) && l.includes(text));
    expect({ rule, resource, text, line }).toEqual({ rule, resource, text, line: expect.any(String) });
  }
  expect(output).toMatch(/\[mandatory\]\s+identity-subject-pinned/);
  expect(output).toMatch(/\[advisory\]\s+identity-unused/);
  expect(output).toMatch(/\[mandatory\]\s+workload-identity-no-takeover/);
  expect(output).toMatch(/\[advisory\]\s+workload-identity-privileged/);
}

function expectNoViolations(result: CommandResult): void {
  const output = result.stdout + result.stderr;
  // A violation names its resource as `Kind "name"` (sdk/words resourceText).
  expect(output.split("\n").filter((l) => /\[[a-z-]+\] [A-Za-z]+ "/.test(l))).toEqual([]);
}

let emulator: Emulator;
let tarball: string;

beforeAll(async () => {
  await bundlePolicy();
  tarball = buildPluginTarball();
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator?.close();
});

describe("TypeScript on the dynamic resources", () => {
  const programDir = "test/e2e/fixtures/policy";
  let stack: PulumiStack;

  beforeAll(async () => {
    installLocalPackage(programDir);
    stack = await PulumiStack.create({
      programDir,
      config: { organization: emulator.orgUid, "platform:apiUrl": emulator.url, variant: "violating" },
      secrets: { "platform:token": emulator.token },
    });
  });
  afterAll(() => tearDown(stack));

  test("a program breaking every rule fails the preview, one line per violation", async () => {
    const result = await stack.run(["preview", "--policy-pack", policyPack], { allowFailure: true });
    expect(result.exitCode).not.toBe(0);
    expectViolations(result);
  });

  test("the same program with the violations fixed passes preview and up", async () => {
    await stack.setConfig("variant", "compliant");
    expectNoViolations(await stack.run(["preview", "--policy-pack", policyPack]));
    expectNoViolations(await stack.run(["up", "--yes", "--skip-preview", "--policy-pack", policyPack]));
  });
});

/** The fixture program in YAML, on the native plugin. */
function yamlProgram(violating: boolean): string {
  const pick = (bad: string, good: string) => (violating ? bad : good);
  const days = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString();
  return `name: policy-pack-e2e-yaml
runtime: yaml
config:
  organization:
    type: string
variables:
  owner:
    fn::invoke:
      function: platform:iam:getRole
      arguments:
        name: owner
  viewer:
    fn::invoke:
      function: platform:iam:getRole
      arguments:
        name: viewer
resources:
  deploy:
    type: platform:iam:Group
    properties:
      parentUid: \${organization}
      name: deploy
  ci:
    type: platform:iam:Identity
    properties:
      parentUid: \${organization}
      name: ci
      claimMatch:
        issuer: https://token.actions.githubusercontent.com
${pick(
  "        subjectPattern: repo:acme/.*",
  "        subjectPattern: repo:acme/deploy:ref:refs/heads/.*\n        audience: platform.example.com",
)}
  federated:
    type: platform:iam:Identity
    properties:
      parentUid: \${organization}
      name: federated
      claimMatch:
        issuerPattern: ${pick("'https://[a-z]+\\.example\\.com'", "'https://idp\\.example\\.com'")}
        subject: deployer
  keys:
    type: platform:iam:Identity
    properties:
      parentUid: \${organization}
      name: keys
      staticKeys:
        issuer: https://keys.example.com
        subject: batch
        issuerKeys: '{"keys":[]}'
        expirationTime: ${days(violating ? 300 : 30)}
  ops:
    type: platform:iam:Identity
    properties:
      parentUid: \${organization}
      name: ops
      claimMatch:
        issuer: https://token.actions.githubusercontent.com
        subject: repo:acme/ops:ref:refs/heads/main
        audience: platform.example.com
  escalator:
    type: platform:iam:Role
    properties:
      parentUid: \${organization}
      name: escalator
      capabilities: ${pick("[CAP_IAM_ROLE_BINDINGS_CREATE, CAP_IAM_ROLES_UPDATE]", "[CAP_IAM_GROUPS_LIST, CAP_REPO_LIST]")}
  identity-admin:
    type: platform:iam:Role
    properties:
      parentUid: \${organization}
      name: identity-admin
      capabilities: ${pick("[CAP_IAM_IDENTITY_LIST, CAP_IAM_IDENTITY_UPDATE]", "[CAP_IAM_IDENTITY_LIST]")}
  ops-identities:
    type: platform:iam:RoleBinding
    properties:
      groupUid: \${organization}
      identityUid: \${ops.uid}
      roleUid: \${identity-admin.uid}
  ci-owner:
    type: platform:iam:RoleBinding
    properties:
      groupUid: ${pick("${organization}", "${deploy.uid}")}
      identityUid: \${ci.uid}
      roleUid: ${pick("${owner.uid}", "${viewer.uid}")}
  ci-escalator:
    type: platform:iam:RoleBinding
    properties:
      groupUid: \${deploy.uid}
      identityUid: \${ci.uid}
      roleUid: \${escalator.uid}
  federated-viewer:
    type: platform:iam:RoleBinding
    properties:
      groupUid: \${deploy.uid}
      identityUid: \${federated.uid}
      roleUid: \${viewer.uid}
${pick(
  "",
  `  keys-viewer:
    type: platform:iam:RoleBinding
    properties:
      groupUid: \${deploy.uid}
      identityUid: \${keys.uid}
      roleUid: \${viewer.uid}`,
)}
  invite:
    type: platform:iam:GroupInvite
    properties:
      groupUid: \${deploy.uid}
      roleUid: ${pick("${owner.uid}", "${viewer.uid}")}
      ttl: ${pick("720h", "72h")}
${pick("", "      email: new.hire@example.com")}
  sso:
    type: platform:iam:IdentityProvider
    properties:
      parentUid: \${organization}
      name: sso
      defaultRole: ${pick("${owner.uid}", "${viewer.uid}")}
      issuer: https://login.example.com
      clientId: platform
      clientSecret:
        fn::secret: not-a-real-secret
`;
}

describe("YAML on the native plugin", () => {
  let programDir: string;
  let stack: PulumiStack;

  beforeAll(async () => {
    programDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-platform-policy-yaml-"));
    fs.writeFileSync(path.join(programDir, "Pulumi.yaml"), yamlProgram(true));
    stack = await PulumiStack.create({
      programDir,
      config: { organization: emulator.orgUid, "platform:apiUrl": emulator.url },
      secrets: { "platform:token": emulator.token },
    });
    await installPlugin(stack, tarball);
  });
  afterAll(async () => {
    await tearDown(stack);
    fs.rmSync(programDir, { recursive: true, force: true });
  });

  test("a program breaking every rule fails the preview, one line per violation", async () => {
    const result = await stack.run(["preview", "--policy-pack", policyPack], { allowFailure: true });
    expect(result.exitCode).not.toBe(0);
    expectViolations(result);
  });

  test("the same program with the violations fixed passes preview and up", async () => {
    fs.writeFileSync(path.join(programDir, "Pulumi.yaml"), yamlProgram(false));
    expectNoViolations(await stack.run(["preview", "--policy-pack", policyPack]));
    expectNoViolations(await stack.run(["up", "--yes", "--skip-preview", "--policy-pack", policyPack]));
  });
});

/** The fixture program in Python, on the generated Python SDK of the native plugin. */
function pythonProgram(violating: boolean): string {
  const pick = (bad: string, good: string) => (violating ? bad : good);
  const days = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString();
  return `import pulumi
import pulumi_platform_native as platform

organization = pulumi.Config().require("organization")
owner = platform.iam.get_role_output(name="owner")
viewer = platform.iam.get_role_output(name="viewer")

deploy = platform.iam.Group("deploy", parent_uid=organization, name="deploy")
ci = platform.iam.Identity("ci", parent_uid=organization, name="ci", claim_match=${pick(
    `{"issuer": "https://token.actions.githubusercontent.com", "subject_pattern": "repo:acme/.*"}`,
    `{"issuer": "https://token.actions.githubusercontent.com", "subject_pattern": "repo:acme/deploy:ref:refs/heads/.*", "audience": "platform.example.com"}`,
  )})
federated = platform.iam.Identity("federated", parent_uid=organization, name="federated", claim_match={
    "issuer_pattern": ${pick(`r"https://[a-z]+\\.example\\.com"`, `r"https://idp\\.example\\.com"`)}, "subject": "deployer"})
keys = platform.iam.Identity("keys", parent_uid=organization, name="keys", static_keys={
    "issuer": "https://keys.example.com", "subject": "batch", "issuer_keys": '{"keys":[]}',
    "expiration_time": "${days(violating ? 300 : 30)}"})
ops = platform.iam.Identity("ops", parent_uid=organization, name="ops", claim_match={
    "issuer": "https://token.actions.githubusercontent.com", "subject": "repo:acme/ops:ref:refs/heads/main",
    "audience": "platform.example.com"})
escalator = platform.iam.Role("escalator", parent_uid=organization, name="escalator",
    capabilities=${pick(`["CAP_IAM_ROLE_BINDINGS_CREATE", "CAP_IAM_ROLES_UPDATE"]`, `["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST"]`)})
identity_admin = platform.iam.Role("identity-admin", parent_uid=organization, name="identity-admin",
    capabilities=${pick(`["CAP_IAM_IDENTITY_LIST", "CAP_IAM_IDENTITY_UPDATE"]`, `["CAP_IAM_IDENTITY_LIST"]`)})
platform.iam.RoleBinding("ops-identities", group_uid=organization, identity_uid=ops.uid, role_uid=identity_admin.uid)
platform.iam.RoleBinding("ci-owner", group_uid=${pick("organization", "deploy.uid")}, identity_uid=ci.uid,
    role_uid=${pick("owner.uid", "viewer.uid")})
platform.iam.RoleBinding("ci-escalator", group_uid=deploy.uid, identity_uid=ci.uid, role_uid=escalator.uid)
platform.iam.RoleBinding("federated-viewer", group_uid=deploy.uid, identity_uid=federated.uid, role_uid=viewer.uid)
${pick("", `platform.iam.RoleBinding("keys-viewer", group_uid=deploy.uid, identity_uid=keys.uid, role_uid=viewer.uid)`)}
platform.iam.GroupInvite("invite", group_uid=deploy.uid, role_uid=${pick("owner.uid", "viewer.uid")},
    ttl="${pick("720h", "72h")}"${pick("", `, email="new.hire@example.com"`)})
platform.iam.IdentityProvider("sso", parent_uid=organization, name="sso",
    default_role=${pick("owner.uid", "viewer.uid")}, issuer="https://login.example.com", client_id="platform",
    client_secret=pulumi.Output.secret("not-a-real-secret"))
`;
}

describe("Python on the native plugin", () => {
  let programDir: string;
  let stack: PulumiStack;

  beforeAll(async () => {
    programDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-platform-policy-python-"));
    fs.writeFileSync(path.join(programDir, "Pulumi.yaml"), "name: policy-pack-e2e-python\nruntime: python\n");
    fs.writeFileSync(path.join(programDir, "__main__.py"), pythonProgram(true));
    stack = await PulumiStack.create({
      programDir,
      config: { organization: emulator.orgUid, "platform:apiUrl": emulator.url },
      secrets: { "platform:token": emulator.token },
      env: { VIRTUAL_ENV: pythonEnvironment() },
    });
    await installPlugin(stack, tarball);
  });
  afterAll(async () => {
    await stack?.cleanup();
    fs.rmSync(programDir, { recursive: true, force: true });
  });

  test("a program breaking every rule fails the preview, one line per violation; fixed, it passes", async () => {
    const result = await stack.run(["preview", "--policy-pack", policyPack], { allowFailure: true });
    expect(result.exitCode).not.toBe(0);
    expectViolations(result);
    fs.writeFileSync(path.join(programDir, "__main__.py"), pythonProgram(false));
    expectNoViolations(await stack.run(["preview", "--policy-pack", policyPack]));
  });
});

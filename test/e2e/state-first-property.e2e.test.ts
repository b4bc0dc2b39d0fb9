/**
 * The state written state-first is the state `pulumi import --file` records (fast-check, fixed seed, a few random
 * organizations, under the real engine): for each generated organization (nested groups, identities, custom
 * roles with random capabilities, bindings of custom and built-in roles, identity providers, invites, account
 * associations; descriptions of any text), one stack takes the document with `pulumi import --file` and another
 * with `platform-import --state-out` and `platform-import load`; their exports are equal resource by resource
 * (URN, type, id, inputs, outputs, parent, provider, protect), apart from the times the engine stamps and the
 * default provider's random id.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { startEmulator, type Emulator } from "../../emulator";
import type { PlatformClient } from "../../sdk";
import { buildOncePerRun, PulumiStack, repoRoot, type StackState } from "./harness";
import { buildPluginTarball, installPlugin } from "./plugin-tarball";

jest.setTimeout(1_800_000);

const CLI = path.join(repoRoot, "dist/commands/import/cli.js");

const nameArb = fc.stringMatching(/^[a-z][a-z0-9._-]{0,14}$/);
const textArb = fc.string({ maxLength: 40 });

interface Organization {
  groups: { name: string; description: string; under: number }[];
  identities: { name: string; description: string; subject: string; group: number }[];
  /** `capabilities`: indexes into the owner role's (a caller grants only what it holds). */
  roles: { name: string; description: string; capabilities: number[] }[];
  bindings: { identity: number; role: number; group: number }[];
  providers: { name: string; clientId: string }[];
  invites: { group: number; email: string }[];
  associations: { group: number; account: string }[];
}

const organizationArb: fc.Arbitrary<Organization> = fc.record({
  // `under`: the organization (0) or an earlier group, by index + 1.
  groups: fc.uniqueArray(fc.record({ name: nameArb, description: textArb, under: fc.nat() }), {
    maxLength: 4,
    selector: (g) => g.name,
  }),
  identities: fc.uniqueArray(
    fc.record({
      name: nameArb,
      description: textArb,
      subject: textArb.filter((s) => s.trim() !== ""),
      group: fc.nat(),
    }),
    { maxLength: 4, selector: (i) => i.name },
  ),
  roles: fc.uniqueArray(
    fc.record({
      name: nameArb,
      description: textArb,
      capabilities: fc.uniqueArray(fc.nat(), { minLength: 1, maxLength: 4 }),
    }),
    { maxLength: 2, selector: (r) => r.name },
  ),
  bindings: fc.array(fc.record({ identity: fc.nat(), role: fc.nat(), group: fc.nat() }), { maxLength: 4 }),
  providers: fc.uniqueArray(fc.record({ name: nameArb, clientId: nameArb }), {
    maxLength: 1,
    selector: (p) => p.name,
  }),
  invites: fc.array(fc.record({ group: fc.nat(), email: fc.constantFrom("", "someone@example.com") }), {
    maxLength: 2,
  }),
  associations: fc.array(fc.record({ group: fc.nat(), account: fc.stringMatching(/^[0-9]{12}$/) }), {
    maxLength: 1,
  }),
});

/** Makes `org` as a new organization (an identity provider needs one); gives its uid. */
async function make(client: PlatformClient, org: Organization, run: number): Promise<string> {
  const builtIn = (await client.roles.list({ pageSize: 200 })).items;
  const viewer = builtIn.find((r) => r.name === "viewer")!;
  const held = builtIn.find((r) => r.name === "owner")!.capabilities ?? [];
  const folder = await client.groups.create(undefined, {
    name: `generated-${run}`,
    description: "A generated organization",
  });
  const groups = [folder.uid];
  for (const [i, g] of org.groups.entries()) {
    const parent = groups[g.under % (i + 1)]!;
    groups.push((await client.groups.create(parent, { name: g.name, description: g.description })).uid);
  }
  const pick = <T>(items: readonly T[], n: number) => items[n % items.length]!;
  const identities: string[] = [];
  for (const i of org.identities)
    identities.push(
      (
        await client.identities.create(pick(groups, i.group), {
          name: i.name,
          description: i.description,
          claimMatch: { issuer: "https://issuer.example.com", subject: i.subject },
        })
      ).uid,
    );
  const roles = [viewer.uid];
  for (const r of org.roles)
    roles.push(
      (
        await client.roles.create(folder.uid, {
          name: r.name,
          description: r.description,
          capabilities: [...new Set(r.capabilities.map((i) => held[i % held.length]!))],
        })
      ).uid,
    );
  const bound = new Set<string>();
  for (const b of org.bindings) {
    if (identities.length === 0) break;
    const key = `${b.identity % identities.length} ${b.role % roles.length} ${b.group % groups.length}`;
    if (bound.has(key)) continue;
    bound.add(key);
    await client.roleBindings.create(pick(groups, b.group), {
      identityUid: pick(identities, b.identity),
      roleUid: pick(roles, b.role),
    });
  }
  for (const p of org.providers)
    await client.identityProviders.create(folder.uid, {
      name: p.name,
      defaultRole: viewer.uid,
      oidc: { issuer: "https://login.example.com", clientId: p.clientId, clientSecret: "generated-secret" },
    });
  for (const v of org.invites)
    await client.groupInvites.create(pick(groups, v.group), {
      roleUid: viewer.uid,
      ttl: "86400s",
      ...(v.email ? { email: v.email } : {}),
    });
  const associated = new Set<string>();
  for (const a of org.associations) {
    const group = pick(groups, a.group);
    if (associated.has(group)) continue;
    associated.add(group);
    await client.accountAssociations.create(group, { name: "generated-aws", amazon: { account: a.account } });
  }
  return folder.uid;
}

/** The state of a stack, resource by resource, without the engine's stamps and the provider's random id. */
function comparable(state: StackState): Map<string, unknown> {
  const byUrn = new Map<string, unknown>();
  for (const r of state.deployment.resources ?? []) {
    // `dependencies` and `propertyDependencies` are what the printed program registers when it first runs:
    // `platform-import load` records them as that run keeps them (so the first update rewrites no checkpoint:
    // test/e2e/adopt-first-up*.e2e.test.ts), where `pulumi import --file` leaves them to the first update.
    const {
      created: _c,
      modified: _m,
      dependencies: _d,
      propertyDependencies: _p,
      ...rest
    } = r as Record<string, unknown>;
    if (r.type === "pulumi:providers:platform") delete rest["id"];
    if (typeof rest["provider"] === "string")
      rest["provider"] = (rest["provider"] as string).replace(/::[^:]+$/, "");
    byUrn.set(r.urn, rest);
  }
  return byUrn;
}

describe("the state written state-first is the state pulumi import records", () => {
  let emulator: Emulator;
  let tarball: string;
  const stacks: PulumiStack[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    buildOncePerRun(); // the CLI is dist/'s
    tarball = buildPluginTarball();
    emulator = await startEmulator();
  });

  afterAll(async () => {
    for (const stack of stacks) await stack.cleanup();
    await emulator?.close();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function yamlStack(): Promise<{ stack: PulumiStack; dir: string }> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "platform-state-first-prop-"));
    dirs.push(dir);
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: platform-state-first-prop\nruntime: yaml\n");
    // The same stack name (each in its own backend), so that the two stacks' URNs are the same.
    const stack = await PulumiStack.create({ programDir: dir, stackName: "adopted" });
    stacks.push(stack);
    await installPlugin(stack, tarball);
    return { stack, dir };
  }

  /** `platform-import <args>` in `dir`, in the stack's environment, with the emulator's credentials. */
  async function platformImport(args: string[], dir: string, stack: PulumiStack): Promise<void> {
    const credentials = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: emulator.token };
    await stack.shell(["node", CLI, ...args].map((a) => JSON.stringify(a)).join(" "), {
      dir,
      env: credentials,
    });
  }

  it("for 4 random organizations, resource by resource", async () => {
    let run = 0;
    const sizes: number[] = [];
    const credentials = { PLATFORM_API_URL: "", PLATFORM_TOKEN: "" };
    await fc.assert(
      fc.asyncProperty(organizationArb, async (org) => {
        const folder = await make(emulator.client, org, run++);
        credentials.PLATFORM_API_URL = emulator.url;
        credentials.PLATFORM_TOKEN = emulator.token;

        const imported = await yamlStack();
        await platformImport([folder, "--out", "import.json"], imported.dir, imported.stack);
        await imported.stack.run(["import", "--file", "import.json", "--yes", "--generate-code=false"], {
          env: credentials,
        });

        const loaded = await yamlStack();
        await platformImport(
          [folder, "--out", "import.json", "--state-out", "adopted.json"],
          loaded.dir,
          loaded.stack,
        );
        expect(fs.readFileSync(path.join(loaded.dir, "import.json"), "utf8")).toBe(
          fs.readFileSync(path.join(imported.dir, "import.json"), "utf8"),
        );
        await platformImport(
          ["load", "adopted.json", "--stack", loaded.stack.name],
          loaded.dir,
          loaded.stack,
        );

        const expected = comparable((await imported.stack.exportState()).state);
        const actual = comparable((await loaded.stack.exportState()).state);
        expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
        sizes.push(expected.size);
        for (const [urn, resource] of expected)
          expect({ urn, state: actual.get(urn) }).toEqual({ urn, state: resource });
        // The organization's state-first stack previews no change of what pulumi import took over.
        await loaded.stack.run(["refresh", "--preview-only", "--expect-no-changes"], { env: credentials });
      }),
      { seed: 35, numRuns: 4, endOnFailure: true },
    );
    console.log(`resources compared per organization (with the stack and the provider): ${sizes.join(", ")}`);
    // The generator reaches organizations of every size it allows, not only empty ones.
    expect(Math.max(...sizes)).toBeGreaterThanOrEqual(10);
  });
});

/**
 * platform-import (commands/import/): the API walk against the in-process emulator (every kind, parents, what cannot be
 * recovered, built-in roles left out, the number of calls), names (a fast-check property), the Terraform state
 * mapping from state files written from the Terraform provider's documented attributes, and every refusal (one line,
 * nothing written).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import type { Emulator } from "../../emulator";
import { useOrganization } from "../organization";
import { everyKind, terraformState, capture, EVERY_KIND_ADDRESSES } from "./fixtures";
import { main } from "../../commands/import/cli";
import {
  UNRECOVERABLE,
  assignNames,
  clashKey,
  keyOf,
  unrecoverableProperties,
  type Found,
  type ImportDocument,
} from "../../commands/import/document";
import { RESOURCES } from "../../provider/catalogue";
import { IMPORT_KINDS, KIND_ORDER } from "../../commands/kinds";
import { mapTerraformState } from "../../commands/import/terraform";
import { PAGE_SIZE } from "../../commands/reading";
import { walkGroup } from "../../commands/import/walk";

jest.setTimeout(120_000);

const byType = (doc: ImportDocument) => doc.resources.map((r) => [r.type, r.name, r.id, r.parent ?? null]);

describe("the API walk", () => {
  const organization = useOrganization();
  let emulator: Emulator;
  let objects: Awaited<ReturnType<typeof everyKind>>;
  let orgName: string;

  beforeAll(async () => {
    emulator = organization.emulator;
    objects = await everyKind(emulator.client, emulator.orgUid);
    orgName = await organization.name();
  });

  it("finds an object of every kind, with its group as parent, never a built-in role", async () => {
    const { document, counts } = await walkGroup(emulator.client, emulator.orgUid);
    const o = objects;
    const ownerBinding = (await emulator.client.roleBindings.list({ childrenOf: emulator.orgUid })).items[0]!
      .uid;
    expect(byType(document)).toEqual([
      ["platform:iam:Group", orgName, emulator.orgUid, null],
      ["platform:iam:Group", "legacy", o.group.uid, orgName],
      ["platform:iam:Identity", "legacy-ci", o.identity.uid, "legacy"],
      ["platform:iam:Role", "legacy-role", o.role.uid, orgName],
      // The bootstrap owner's binding on the organization is there too: a binding like any other.
      ["platform:iam:RoleBinding", "demo-user-owner", ownerBinding, orgName],
      ["platform:iam:RoleBinding", "legacy-ci-legacy-role", o.binding.uid, "legacy"],
      ["platform:iam:IdentityProvider", "legacy-sso", o.idp.uid, orgName],
      ["platform:iam:GroupInvite", "legacy-invite", o.invite.uid, "legacy"],
      ["platform:iam:AccountAssociation", "legacy-aws", o.association.uid, "legacy"],
    ]);
    expect(document.resources.map((r) => r.id)).not.toContain(o.viewer.uid);
    expect(counts).toEqual({
      group: 2,
      identity: 1,
      role: 1,
      roleBinding: 2,
      identityProvider: 1,
      groupInvite: 1,
      accountAssociation: 1,
    });
    // What the service never returns is listed, with what to do.
    expect(document.platformImport.notes.map((n) => [n.name, n.what.split(":")[0]])).toEqual([
      ["legacy-sso", "clientSecret"],
      ["legacy-invite", "code"],
    ]);
    expect(document.platformImport.notes.every((n) => n.todo.length > 20)).toBe(true);
    // No two objects share a name: the engine's guessed references form no cycle, so they are printed.
    expect(document.platformImport.warnings).toEqual([]);
    expect(JSON.stringify(document)).not.toContain("hand-made-secret");
  });

  it("walks a folder alone: the folder has no parent in the document, its contents do", async () => {
    const { document } = await walkGroup(emulator.client, objects.group.uid);
    expect(byType(document)).toEqual([
      ["platform:iam:Group", "legacy", objects.group.uid, null],
      ["platform:iam:Identity", "legacy-ci", objects.identity.uid, "legacy"],
      ["platform:iam:RoleBinding", "legacy-ci-legacy-role", objects.binding.uid, "legacy"],
      ["platform:iam:GroupInvite", "legacy-invite", objects.invite.uid, "legacy"],
      ["platform:iam:AccountAssociation", "legacy-aws", objects.association.uid, "legacy"],
    ]);
  });

  it("makes one GET and one call per page of each kind, as the emulator's request log shows", async () => {
    emulator.clearRequestLog();
    const { calls } = await walkGroup(emulator.client, emulator.orgUid);
    const log = emulator.requestLog();
    expect(log).toHaveLength(calls);
    // One GET of the group, one page of each of the seven kinds, and the GET of the organization's own account
    // association (it has none), which a listing of what is below the organization need not return.
    expect(calls).toBe(9);
    expect(log.filter((r) => r.method !== "GET")).toEqual([]);
    expect(
      log.every((r) => r.path.endsWith(emulator.orgUid) || String(r.query?.["page_size"]) === "200"),
    ).toBe(true);
  });
});

describe("a 1,000-object organization", () => {
  const organization = useOrganization();
  let emulator: Emulator;
  const sizes = { groups: 200, identities: 300, roles: 100, bindings: 300, invites: 50, associations: 50 };

  beforeAll(async () => {
    emulator = organization.emulator;
    const client = emulator.client;
    const org = emulator.orgUid;
    const groups: { uid: string }[] = [];
    // Seeded in bulk; the rest through the API, 25 at a time.
    emulator.seed({ groups: Array.from({ length: sizes.groups }, (_, i) => ({ name: `team-${i % 150}` })) });
    for await (const g of client.groups.list({ descendantsOf: org, pageSize: 200 })) groups.push(g);
    const inBatches = async <T>(n: number, make: (i: number) => Promise<T>): Promise<T[]> => {
      const out: T[] = [];
      for (let i = 0; i < n; i += 25)
        out.push(...(await Promise.all(Array.from({ length: Math.min(25, n - i) }, (_, j) => make(i + j)))));
      return out;
    };
    const identities = await inBatches(sizes.identities, (i) =>
      client.identities.create(groups[i % groups.length]!.uid, {
        name: `ci-${i % 200}`,
        claimMatch: { issuer: "https://issuer.example.com", subject: `s${i}` },
      }),
    );
    const roles = await inBatches(sizes.roles, (i) =>
      client.roles.create(org, { name: `role-${i}`, capabilities: ["CAP_REPO_LIST"] }),
    );
    await inBatches(sizes.bindings, (i) =>
      client.roleBindings.create(identities[i]!.uid.split("/").slice(0, -1).join("/"), {
        identityUid: identities[i]!.uid,
        roleUid: roles[i % roles.length]!.uid,
      }),
    );
    await inBatches(sizes.invites, (i) =>
      client.groupInvites.create(groups[i]!.uid, { roleUid: roles[0]!.uid, ttl: "86400s" }),
    );
    await inBatches(sizes.associations, (i) =>
      client.accountAssociations.create(groups[i]!.uid, { name: "aws", amazon: { account: "210987654321" } }),
    );
  });

  it("is read in pages of 200 with the fewest calls; names stay unique", async () => {
    emulator.clearRequestLog();
    const started = process.hrtime.bigint();
    const progress: string[] = [];
    const { document, calls, counts } = await walkGroup(emulator.client, emulator.orgUid, {
      progress: (line) => progress.push(line),
    });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    expect(total).toBe(1 + 1000 + 1); // the organization, what was made, the bootstrap owner's binding
    const pages = (n: number) => Math.max(1, Math.ceil(n / PAGE_SIZE));
    const expected =
      1 +
      pages(sizes.groups) +
      pages(sizes.identities) +
      pages(sizes.roles) +
      pages(sizes.bindings + 1) +
      1 + // identity providers: none
      pages(sizes.invites) +
      pages(sizes.associations) +
      1; // the organization's own association
    expect(calls).toBe(expected);
    expect(emulator.requestLog()).toHaveLength(calls);
    // Progress is shown for the kinds that take more than one page.
    expect(progress).toEqual(expect.arrayContaining(["identities: 300 of 300", "role bindings: 301 of 301"]));
    const names = document.resources.map((r) => r.name);
    expect(new Set(names.map(clashKey)).size).toBe(names.length);
    // Every parent names a group of the document.
    const groupNames = new Set(
      document.resources.filter((r) => r.type === IMPORT_KINDS.group.token).map((r) => r.name),
    );
    for (const r of document.resources.slice(1)) expect(groupNames.has(r.parent!)).toBe(true);
    // Folders and identities here share names two by two: pulumi import would guess circular references.
    expect(document.platformImport.warnings).toEqual([expect.stringMatching(/\[team-0, team-0-2\]/)]);
    console.log(
      `platform-import: ${total} objects in ${calls} API calls, ${ms.toFixed(0)} ms (in-process emulator)`,
    );
  });
});

describe("references the engine will guess", () => {
  const organization = useOrganization();
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = organization.emulator;
  });

  it("a folder and an identity of the same name would refer to each other: a warning names them", async () => {
    const ci = await emulator.client.groups.create(emulator.orgUid, { name: "ci" });
    await emulator.client.identities.create(ci.uid, {
      name: "ci",
      claimMatch: { issuer: "https://issuer.example.com", subject: "ci" },
    });
    const io = capture({ PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: emulator.token });
    expect(await main([ci.uid], io)).toBe(0);
    const doc = JSON.parse(io.out) as ImportDocument;
    expect(doc.resources.map((r) => r.name)).toEqual(["ci", "ci-identity"]);
    expect(doc.platformImport.warnings).toEqual([
      expect.stringMatching(/every uid as a literal.*\[ci, ci-identity\]/),
    ]);
    expect(io.err.join("\n")).toMatch(/^warning: pulumi import will print every uid as a literal/m);
  });

  it("a group whose description is the name of something inside it does too; distinct names do not", async () => {
    const tools = await emulator.client.groups.create(emulator.orgUid, {
      name: "tools",
      description: "deployer",
    });
    await emulator.client.identities.create(tools.uid, {
      name: "deployer",
      claimMatch: { issuer: "https://issuer.example.com", subject: "d" },
    });
    const other = await emulator.client.groups.create(emulator.orgUid, { name: "other", description: "x" });
    await emulator.client.identities.create(other.uid, {
      name: "builder",
      claimMatch: { issuer: "https://issuer.example.com", subject: "b" },
    });
    expect((await walkGroup(emulator.client, tools.uid)).document.platformImport.warnings).toHaveLength(1);
    expect((await walkGroup(emulator.client, other.uid)).document.platformImport.warnings).toEqual([]);
  });
});

describe("names", () => {
  const kinds = fc.constantFrom(...KIND_ORDER);
  const text = fc.oneof(
    fc.constantFrom(
      "team",
      "Team",
      "team a",
      "team-a",
      "team_a",
      "teamA",
      "",
      "-",
      "42",
      "for",
      "platform",
      "ünïcode",
    ),
    fc.string({ maxLength: 12 }),
    fc.string({ unit: "grapheme", maxLength: 8 }),
  );
  const object = fc.record({ kind: kinds, base: text, uid: fc.stringMatching(/^[0-9a-f]{16}$/) });
  const objects = fc.uniqueArray(object, { selector: (o) => `${o.kind} ${o.uid}`, maxLength: 40 });

  it("are valid, unique as printed variables, and the same whatever the order", () => {
    fc.assert(
      fc.property(objects, fc.infiniteStream(fc.integer()), (items: Found[], seeds) => {
        const names = assignNames(items);
        const all = items.map((i) => names.get(keyOf(i))!);
        for (const name of all) expect(name).toMatch(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/);
        expect(new Set(all.map(clashKey)).size).toBe(all.length);
        const shuffled = [...items].sort(() => (seeds.next().value % 2 === 0 ? -1 : 1));
        const again = assignNames(shuffled);
        for (const item of items) expect(again.get(keyOf(item))).toBe(names.get(keyOf(item)));
      }),
      { seed: 2126, numRuns: 300 },
    );
  });

  it("keep the object's own name when it is free", () => {
    const names = assignNames([
      { kind: "group", uid: "a", base: "Engineering" },
      { kind: "accountAssociation", uid: "a", base: "engineering" },
      { kind: "identity", uid: "b", base: "platform" },
    ]);
    expect([...names.values()]).toEqual([
      "engineering",
      "platform-identity",
      "engineering-account-association",
    ]);
  });
});

describe("a Terraform state", () => {
  const organization = useOrganization();
  let emulator: Emulator;
  let objects: Awaited<ReturnType<typeof everyKind>>;

  beforeAll(async () => {
    emulator = organization.emulator;
    objects = await everyKind(emulator.client, emulator.orgUid);
  });

  it("maps every resource of the chainguard provider to the same types, ids and parents as the API walk", async () => {
    const state = terraformState(objects, emulator.orgUid);
    const { document, addresses } = mapTerraformState(JSON.stringify(state), "terraform.tfstate");
    const walked = (await walkGroup(emulator.client, emulator.orgUid)).document;
    // The state does not hold the organization: everything else is the same document.
    const orgName = walked.resources[0]!.name;
    const withoutOrg = walked.resources
      .slice(1)
      .filter((r) => r.name !== "demo-user-owner") // the bootstrap owner's binding: Terraform did not make it
      .map((r) => (r.parent === orgName ? { ...r, parent: undefined } : r));
    expect(document.resources.map((r) => ({ ...r, parent: r.parent }))).toEqual(
      withoutOrg.map((r) => ({ ...r, parent: r.parent })),
    );
    expect(addresses).toEqual(EVERY_KIND_ADDRESSES);
    expect(document.platformImport.skipped).toEqual([
      { subject: "data.chainguard_role.viewer", reason: expect.stringMatching(/data source/) },
      { subject: "chainguard_image_repo.nginx", reason: expect.stringMatching(/no counterpart/) },
      { subject: "aws_s3_bucket.logs", reason: expect.stringMatching(/another provider \(hashicorp\/aws\)/) },
    ]);
    expect(document.platformImport.notes.map((n) => n.name)).toEqual(["legacy-sso", "legacy-invite"]);
    expect(JSON.stringify(document)).not.toMatch(/hand-made-secret|invite-code-from-terraform/);
  });

  it("lists what it cannot map with the reason: no id, a service principal, for_each keys", () => {
    const provider = 'provider["registry.terraform.io/chainguard-dev/chainguard"]';
    const state = terraformState(objects, emulator.orgUid, [
      {
        mode: "managed",
        type: "chainguard_identity",
        name: "sp",
        provider,
        instances: [
          {
            index_key: "a",
            attributes: { id: `${objects.group.uid}/00000000000000aa`, service_principal: "INGESTER" },
          },
          { index_key: 1, attributes: { id: "" } },
        ],
      },
    ]);
    const { document } = mapTerraformState(JSON.stringify(state), "t.tfstate");
    expect(document.platformImport.skipped.slice(3)).toEqual([
      { subject: 'chainguard_identity.sp["a"]', reason: expect.stringMatching(/service principal INGESTER/) },
      { subject: "chainguard_identity.sp[1]", reason: expect.stringMatching(/no id/) },
    ]);
  });

  it("the command writes the document, and --addresses prints what to `terraform state rm`", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "platform-import-"));
    const file = path.join(dir, "terraform.tfstate");
    fs.writeFileSync(file, JSON.stringify(terraformState(objects, emulator.orgUid)));
    const io = capture({});
    expect(await main(["--terraform-state", file, "--out", path.join(dir, "import.json")], io)).toBe(0);
    const written = JSON.parse(fs.readFileSync(path.join(dir, "import.json"), "utf8")) as ImportDocument;
    expect(written.resources).toHaveLength(7);
    expect(io.err.join("\n")).toMatch(/not imported \(3\):\n {2}data\.chainguard_role\.viewer/);
    const list = capture({});
    expect(await main(["--terraform-state", file, "--addresses"], list)).toBe(0);
    expect(list.out.split("\n")).toContain("module.sso.chainguard_identity_provider.sso");
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe("refusals: one line, exit 1, nothing written", () => {
  const organization = useOrganization();
  let emulator: Emulator;
  let dir: string;
  let env: Record<string, string>;
  let identityUid: string;
  let viewerUid: string;

  beforeAll(async () => {
    emulator = organization.emulator;
    env = {
      PLATFORM_API_URL: emulator.url,
      PLATFORM_TOKEN: emulator.token,
      PLATFORM_RETRY_BASE_DELAY_MS: "0",
    };
    identityUid = (
      await emulator.client.identities.create(emulator.orgUid, {
        name: "x",
        claimMatch: { issuer: "https://i.example.com", subject: "x" },
      })
    ).uid;
    viewerUid = (await emulator.client.roles.list({ name: "viewer" })).items[0]!.uid;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "platform-import-refusals-"));
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const write = (name: string, content: string) => {
    fs.writeFileSync(path.join(dir, name), content);
    return path.join(dir, name);
  };

  const cases: [string, () => { args: string[]; env?: Record<string, string> }, RegExp][] = [
    ["a uid that is not a group", () => ({ args: [identityUid] }), /is an identity, not a group$/],
    ["a malformed uid", () => ({ args: ["not-a-uid"] }), /"not-a-uid" is not a group uid/],
    ["a built-in role's uid", () => ({ args: [viewerUid] }), /is a built-in role, not a group$/],
    [
      "a group nobody here can see",
      () => ({ args: [`${emulator.orgUid}/0123456789abcdef`] }),
      /no group .* is visible to these credentials/,
    ],
    [
      "no access (another organization's user)",
      () => ({
        args: [emulator.orgUid],
        env: { ...env, PLATFORM_TOKEN: emulator.createUser("other").token },
      }),
      /(no group .* is visible to these credentials|no access)/,
    ],
    [
      "refused credentials",
      () => ({ args: [emulator.orgUid], env: { ...env, PLATFORM_TOKEN: "not-a-valid-token" } }),
      /the credentials were refused/,
    ],
    [
      "no credentials",
      () => ({ args: [emulator.orgUid], env: { PLATFORM_API_URL: emulator.url } }),
      /no credentials: pass option token \(env PLATFORM_TOKEN\)/,
    ],
    [
      "a state file of another provider",
      () => ({
        args: [
          "--terraform-state",
          write(
            "aws.tfstate",
            JSON.stringify({
              version: 4,
              terraform_version: "1.9.8",
              resources: [
                {
                  mode: "managed",
                  type: "aws_s3_bucket",
                  name: "b",
                  provider: 'provider["registry.terraform.io/hashicorp/aws"]',
                  instances: [],
                },
              ],
            }),
          ),
        ],
      }),
      /holds no resource of the chainguard-dev\/chainguard provider \(only of hashicorp\/aws\)$/,
    ],
    [
      "a state file of another format version",
      () => ({
        args: [
          "--terraform-state",
          write("v3.tfstate", JSON.stringify({ version: 3, terraform_version: "0.11.14", modules: [] })),
        ],
      }),
      /format version 3; only version 4 is read$/,
    ],
    [
      "a file that is not a state",
      () => ({ args: ["--terraform-state", write("x.tfstate", 'resource "x" {}')] }),
      /is not a Terraform state: it is not JSON$/,
    ],
    [
      "a JSON file that is not a state",
      () => ({ args: ["--terraform-state", write("y.json", JSON.stringify({ resources: [] }))] }),
      /is not a Terraform state: it has no "version"/,
    ],
    [
      "a missing state file",
      () => ({ args: ["--terraform-state", path.join(dir, "none.tfstate")] }),
      /cannot read .*: ENOENT$/,
    ],
    ["neither a uid nor a state", () => ({ args: [] }), /give a group uid or --terraform-state, not neither/],
  ];

  it.each(cases)("%s", async (_what, make, message) => {
    const { args, env: callEnv } = make();
    const out = path.join(dir, "import.json");
    fs.rmSync(out, { force: true });
    const io = capture(callEnv ?? env);
    expect(await main([...args, "--out", out], io)).toBe(1);
    expect(io.err).toHaveLength(1);
    expect(io.err[0]).toMatch(/^platform-import: /);
    expect(io.err[0]).toMatch(message);
    expect(io.out).toBe("");
    expect(fs.existsSync(out)).toBe(false);
    expect(fs.readdirSync(dir).filter((f) => f.includes("import"))).toEqual([]);
    for (const secret of [emulator.token, (callEnv ?? env)["PLATFORM_TOKEN"]])
      if (secret) expect(io.err[0]).not.toContain(secret);
  });

  it("the document of a walk goes to stdout when there is no --out, and the token never shows", async () => {
    const io = capture(env);
    expect(await main([emulator.orgUid], io)).toBe(0);
    const doc = JSON.parse(io.out) as ImportDocument;
    expect(doc.resources.map((r) => r.type)).toEqual([
      IMPORT_KINDS.group.token,
      IMPORT_KINDS.identity.token,
      IMPORT_KINDS.roleBinding.token,
    ]);
    expect(io.err.join("\n")).toMatch(/1 group, 1 identity, 1 role binding \(9 API calls, \d+ ms\)/);
    expect(io.err.join("\n") + io.out).not.toContain(emulator.token);
  });

  it("takes credentials by identity exchange as the provider does, never printing the OIDC token", async () => {
    const viewer = (await emulator.client.roles.list({ name: "viewer" })).items[0]!;
    const deployer = await emulator.client.identities.create(emulator.orgUid, {
      name: "importer-ci",
      claimMatch: { issuer: `${emulator.url}/oidc`, subject: "importer" },
    });
    await emulator.client.roleBindings.create(emulator.orgUid, {
      identityUid: deployer.uid,
      roleUid: viewer.uid,
    });
    const oidc = await emulator.mintIdToken({ subject: "importer" });
    const io = capture({
      PLATFORM_API_URL: emulator.url,
      PLATFORM_IDENTITY: deployer.uid,
      PLATFORM_IDENTITY_TOKEN: oidc,
    });
    // A viewer of the organization reads everything in it.
    expect(await main([emulator.orgUid], io)).toBe(0);
    const doc = JSON.parse(io.out) as ImportDocument;
    expect(doc.resources.map((r) => r.id)).toContain(deployer.uid);
    expect(io.err.join("\n") + io.out).not.toContain(oidc);
  });
});

describe("what an import cannot recover", () => {
  it("has advice for exactly the declarations' write-only inputs and secret outputs", () => {
    const expected = RESOURCES.flatMap(({ declaration }) =>
      unrecoverableProperties(declaration).map((key) => `${declaration.token}.${key}`),
    );
    expect(Object.keys(UNRECOVERABLE).sort()).toEqual(expected.sort());
  });
});

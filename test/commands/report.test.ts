/**
 * platform-import report (commands/import/report.ts, commands/states.ts): a test organization against the in-process
 * emulator, some of it managed by two exported states (one stack on the dynamic provider, one on the native plugin),
 * some made by hand. The report finds the hand-made objects and nothing else, the managed objects that are gone,
 * the coverage of each kind, bindings held by authoritative access resources; its API calls (from the emulator's
 * request log) do not grow with the number of objects or states; exit codes; the JSON shape; the import document of
 * exactly the unmanaged objects; the complement of random managed sets (fast-check, fixed seed); refusals.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import type { Emulator } from "../../emulator";
import { useOrganization } from "../organization";
import { EXIT_UNMANAGED, main } from "../../commands/import/cli";
import type { ImportDocument } from "../../commands/import/document";
import { IMPORT_KINDS, LISTED_KINDS } from "../../commands/kinds";
import type { Report } from "../../commands/import/report";
import { reportUnmanaged } from "../../commands/import/report";
import { readState, tokenOf } from "../../commands/states";
import { listGroup } from "../../commands/import/walk";
import { stateExport, type StateEntry, capture } from "./fixtures";

jest.setTimeout(120_000);

const claim = (subject: string) => ({ issuer: "https://issuer.example.com", subject });

describe("platform-import report", () => {
  const emulated = useOrganization();
  let emulator: Emulator;
  let env: Record<string, string>;
  let dir: string;
  let org: string;
  /** Objects two stacks manage, hand-made ones, and the files of the two states. */
  let o: Awaited<ReturnType<typeof organization>>;

  async function organization() {
    const c = emulator.client;
    const viewer = (await c.roles.list({ name: "viewer" })).items.find((r) => r.name === "viewer")!;
    const owner = (await c.roleBindings.list({ childrenOf: org })).items[0]!; // the bootstrap owner's
    // Stack "app" (dynamic provider): a folder, an identity in it and its binding; and the owner's binding.
    const platform = await c.groups.create(org, { name: "platform" });
    const deployer = await c.identities.create(platform.uid, { name: "deployer", claimMatch: claim("d") });
    const deployerViewer = await c.roleBindings.create(platform.uid, {
      identityUid: deployer.uid,
      roleUid: viewer.uid,
    });
    // Stack "shared" (native plugin): a custom role, an identity provider, an invite and an association.
    const role = await c.roles.create(org, { name: "deploy-role", capabilities: ["CAP_REPO_LIST"] });
    const sso = await c.identityProviders.create(org, {
      name: "sso",
      defaultRole: viewer.uid,
      oidc: { issuer: "https://login.example.com", clientId: "x", clientSecret: "secret-of-sso" },
    });
    const invite = await c.groupInvites.create(platform.uid, { roleUid: viewer.uid, ttl: "86400s" });
    const aws = await c.accountAssociations.create(platform.uid, {
      name: "aws",
      amazon: { account: "210987654321" },
    });
    // Managed by "shared", then deleted by hand.
    const gone = await c.identities.create(platform.uid, { name: "gone", claimMatch: claim("g") });
    await c.identities.delete(gone.uid);
    // Made by hand: a folder, an identity in the managed folder, its binding there.
    const shadow = await c.groups.create(org, { name: "shadow" });
    const intruder = await c.identities.create(platform.uid, { name: "intruder", claimMatch: claim("i") });
    const intruderRole = await c.roleBindings.create(platform.uid, {
      identityUid: intruder.uid,
      roleUid: role.uid,
    });

    const app: StateEntry[] = [
      { front: "dynamic", token: IMPORT_KINDS.group.token, uid: platform.uid, name: "platform" },
      { front: "dynamic", token: IMPORT_KINDS.identity.token, uid: deployer.uid, name: "deployer" },
      {
        front: "dynamic",
        token: IMPORT_KINDS.roleBinding.token,
        uid: deployerViewer.uid,
        name: "deployer-viewer",
      },
      { front: "dynamic", token: IMPORT_KINDS.roleBinding.token, uid: owner.uid, name: "owner" },
      // Read with `get`, not managed: the hand-made folder stays unmanaged.
      {
        front: "dynamic",
        token: IMPORT_KINDS.group.token,
        uid: shadow.uid,
        name: "shadow-read",
        external: true,
      },
    ];
    const shared: StateEntry[] = [
      { front: "native", token: IMPORT_KINDS.role.token, uid: role.uid, name: "deploy-role" },
      { front: "native", token: IMPORT_KINDS.identityProvider.token, uid: sso.uid, name: "sso" },
      { front: "native", token: IMPORT_KINDS.groupInvite.token, uid: invite.uid, name: "invite" },
      { front: "native", token: IMPORT_KINDS.accountAssociation.token, uid: aws.uid, name: "aws" },
      { front: "native", token: IMPORT_KINDS.identity.token, uid: gone.uid, name: "gone" },
      // Pending deletion after a failed replace: not managed.
      { front: "native", token: IMPORT_KINDS.group.token, uid: shadow.uid, name: "old", pendingDelete: true },
      // Another organization's object: outside the scope, neither unmanaged nor gone here.
      {
        front: "native",
        token: IMPORT_KINDS.group.token,
        uid: `${"e".repeat(40)}/0123456789abcdef`,
        name: "x",
      },
    ];
    const write = (name: string, entries: StateEntry[]) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, JSON.stringify(stateExport(name.replace(/\.json$/, ""), entries)));
      return file;
    };
    return {
      viewer,
      owner,
      platform,
      deployer,
      role,
      gone,
      shadow,
      intruder,
      intruderRole,
      app,
      shared,
      appFile: write("app.json", app),
      sharedFile: write("shared.json", shared),
      write,
    };
  }

  beforeAll(async () => {
    emulator = emulated.emulator;
    org = emulator.orgUid;
    env = {
      PLATFORM_API_URL: emulator.url,
      PLATFORM_TOKEN: emulator.token,
      PLATFORM_RETRY_BASE_DELAY_MS: "0",
      // The folders were made by this process: a 404 on one (its association) is an answer, not a 60 s delay.
      PLATFORM_PROPAGATION_WINDOW_MS: "0",
    };
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "platform-report-"));
    o = await organization();
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function run(args: string[], callEnv = env) {
    const io = capture(callEnv);
    const code = await main(["report", ...args], io);
    return { code, io };
  }

  it("finds the hand-made objects and nothing else, and the managed object that is gone", async () => {
    const { code, io } = await run([org, "--state", o.appFile, "--state", o.sharedFile, "--json"]);
    expect(code).toBe(EXIT_UNMANAGED);
    const report = JSON.parse(io.out) as Report;
    expect(report.unmanaged.map((u) => [u.kind, u.uid]).sort()).toEqual(
      [
        ["group", o.shadow.uid],
        ["identity", o.intruder.uid],
        ["roleBinding", o.intruderRole.uid],
      ].sort(),
    );
    expect(report.missing).toEqual([
      {
        type: IMPORT_KINDS.identity.token,
        uid: o.gone.uid,
        urn: "urn:pulumi:dev::shared::platform:iam:Identity::gone",
        state: o.sharedFile,
      },
    ]);
    expect(report.coverage).toEqual({
      group: { managed: 1, total: 2 },
      identity: { managed: 1, total: 2 },
      role: { managed: 1, total: 1 },
      roleBinding: { managed: 2, total: 3 },
      identityProvider: { managed: 1, total: 1 },
      groupInvite: { managed: 1, total: 1 },
      accountAssociation: { managed: 1, total: 1 },
    });
    // JSON names objects as the API does: a binding has no name, it links an identity and a role.
    const binding = report.unmanaged.find((u) => u.kind === "roleBinding")!;
    expect(binding).not.toHaveProperty("name");
    expect(binding).toMatchObject({
      identityUid: o.intruder.uid,
      roleUid: o.role.uid,
      group: o.platform.uid,
    });
    expect(report.unmanaged.find((u) => u.kind === "identity")!.name).toBe("intruder");
    // Every other object names the state and the resource that manage it.
    const by = (entries: StateEntry[], file: string, project: string) =>
      entries
        .filter((e) => !e.external && !e.pendingDelete && e.uid !== o.gone.uid && e.uid.startsWith(org))
        .map((e) => {
          const [, module, type] = e.token.split(":") as [string, string, string];
          const typeToken = e.front === "dynamic" ? `pulumi-nodejs:dynamic/${module}:${type}` : e.token;
          return [
            e.uid,
            [{ stack: file, urn: `urn:pulumi:dev::${project}::${typeToken}::${e.name}`, type: e.token }],
          ];
        });
    expect(new Map(report.managed.map((m) => [m.uid, m.managedBy]))).toEqual(
      new Map([...by(o.app, o.appFile, "app"), ...by(o.shared, o.sharedFile, "shared")] as [
        string,
        unknown,
      ][]),
    );
    expect(report.conflicts).toEqual([]);
    expect(io.out).not.toContain("secret-of-sso");
    expect(io.out + io.err.join("\n")).not.toContain(emulator.token);
  });

  it("has the JSON shape the docs describe", async () => {
    const { io } = await run([org, "--state", o.appFile, "--state", o.sharedFile, "--json"]);
    const report = JSON.parse(io.out) as Report;
    expect(Object.keys(report)).toEqual([
      "group",
      "states",
      "unreadable",
      "calls",
      "coverage",
      "conflicts",
      "unmanaged",
      "missing",
      "managed",
      "skipped",
    ]);
    expect(report.group).toEqual({ uid: org, name: expect.any(String) });
    expect(report.states).toEqual([o.appFile, o.sharedFile]);
    expect(Object.keys(report.coverage)).toEqual(LISTED_KINDS);
    expect(report.unmanaged[0]).toEqual({
      kind: "group",
      type: "platform:iam:Group",
      uid: o.shadow.uid,
      name: "shadow",
      group: org,
    });
    expect(Object.keys(report.unmanaged[1]!)).toEqual(["kind", "type", "uid", "name", "group"]);
    expect(Object.keys(report.unmanaged[2]!)).toEqual([
      "kind",
      "type",
      "uid",
      "group",
      "identityUid",
      "roleUid",
    ]);
    expect(io.out).not.toContain(" holds ");
    expect(io.out).not.toContain(" in demo-org");
    expect(report.skipped).toEqual([]);
  });

  it("prints the coverage and each finding as text", async () => {
    const { code, io } = await run([org, "--state", o.appFile, "--state", o.sharedFile]);
    expect(code).toBe(EXIT_UNMANAGED);
    expect(io.out).toMatch(/ against 2 states: 3 unmanaged, 1 managed but gone, 0 conflicts\n/);
    expect(io.out).toMatch(/^ {2}groups +1 \/ 2$/m);
    expect(io.out).toMatch(/^ {2}role bindings +2 \/ 3$/m);
    expect(io.out).toMatch(/^ {2}all +8 \/ 11$/m);
    expect(io.out).toContain(
      `  role binding  ${o.intruderRole.uid}  workload identity intruder holds role deploy-role on folder platform\n`,
    );
    expect(io.out).toContain(`  identity  ${o.intruder.uid}  intruder in folder platform\n`);
    // Each managed object under the state that manages it, with the resource's name.
    expect(io.out).toContain(`managed, by stack (8 objects):\n  ${o.appFile} (4):\n`);
    expect(io.out).toContain(
      `    identity  ${o.deployer.uid}  deployer in folder platform  [deployer, Identity]\n`,
    );
    expect(io.out).toContain(`  ${o.sharedFile} (4):\n`);
    expect(io.out).toMatch(
      new RegExp(
        `managed by a stack but gone from the service \\(1\\):\\n {2}platform:iam:Identity {2}${o.gone.uid} {2}urn:`,
      ),
    );
  });

  it("writes the import document of exactly the unmanaged objects", async () => {
    const out = path.join(dir, "import.json");
    const { io } = await run([org, "--state", o.appFile, "--state", o.sharedFile, "--out", out]);
    const document = JSON.parse(fs.readFileSync(out, "utf8")) as ImportDocument;
    expect(document.resources.map((r) => [r.type, r.name, r.id, r.parent ?? null])).toEqual([
      ["platform:iam:Group", "shadow", o.shadow.uid, null],
      ["platform:iam:Identity", "intruder", o.intruder.uid, null],
      ["platform:iam:RoleBinding", "intruder-deploy-role", o.intruderRole.uid, null],
    ]);
    expect(io.err.join("\n")).toMatch(
      /wrote .*import\.json \(3 unmanaged objects\): adopt them with pulumi import/,
    );
  });

  it("exits 0 when every object is managed and none is gone", async () => {
    const everything = o.write("everything.json", [
      ...o.app,
      ...o.shared.filter((e) => e.uid !== o.gone.uid),
      { front: "native", token: IMPORT_KINDS.group.token, uid: o.shadow.uid, name: "shadow" },
      { front: "native", token: IMPORT_KINDS.identity.token, uid: o.intruder.uid, name: "intruder" },
      {
        front: "native",
        token: IMPORT_KINDS.roleBinding.token,
        uid: o.intruderRole.uid,
        name: "intruder-role",
      },
    ]);
    const out = path.join(dir, "empty-import.json");
    const { code, io } = await run([org, "--state", everything, "--json", "--out", out]);
    expect(io.err.filter((l) => l.startsWith("platform-import:"))).toEqual([]);
    expect(code).toBe(0);
    const report = JSON.parse(io.out) as Report;
    expect(report.unmanaged).toEqual([]);
    expect(report.missing).toEqual([]);
    for (const kind of LISTED_KINDS) expect(report.coverage[kind].managed).toBe(report.coverage[kind].total);
    expect((JSON.parse(fs.readFileSync(out, "utf8")) as ImportDocument).resources).toEqual([]);
  });

  it("exits non-zero when a managed object is gone, even with nothing unmanaged", async () => {
    const folder = o.write("folder.json", [
      { front: "native", token: IMPORT_KINDS.identity.token, uid: o.deployer.uid, name: "deployer" },
      { front: "native", token: IMPORT_KINDS.identity.token, uid: o.gone.uid, name: "gone" },
    ]);
    const sub = await emulator.client.groups.create(o.platform.uid, { name: "empty" });
    const onlyGone = o.write("only-gone.json", [
      {
        front: "native",
        token: IMPORT_KINDS.identity.token,
        uid: `${sub.uid}/0123456789abcdef`,
        name: "ghost",
      },
    ]);
    const { code, io } = await run([sub.uid, "--state", onlyGone, "--json"]);
    expect(code).toBe(EXIT_UNMANAGED);
    const report = JSON.parse(io.out) as Report;
    expect(report.unmanaged).toEqual([]);
    expect(report.missing.map((m) => m.uid)).toEqual([`${sub.uid}/0123456789abcdef`]);
    // A folder: the report covers what is under it; the folder itself is the scope.
    const under = await run([o.platform.uid, "--state", folder, "--json"]);
    const report2 = JSON.parse(under.io.out) as Report;
    expect(report2.coverage.identity).toEqual({ managed: 1, total: 2 });
    expect(report2.coverage.group).toEqual({ managed: 0, total: 1 }); // "empty"
  });

  it("counts bindings held by a GroupAccess (direct or subtree) or an IdentityAccess as managed", async () => {
    const c = emulator.client;
    const team = await c.groups.create(o.platform.uid, { name: "team" });
    const inTeam = await c.roleBindings.create(team.uid, {
      identityUid: o.intruder.uid,
      roleUid: o.viewer.uid,
    });
    const base = [...o.app, ...o.shared];
    const report = async (entries: StateEntry[]) => {
      const file = o.write("access.json", [...base, ...entries]);
      const { io } = await run([org, "--state", file, "--json"]);
      return (JSON.parse(io.out) as Report).unmanaged
        .filter((u) => u.kind === "roleBinding")
        .map((u) => u.uid);
    };
    const access = (token: string, uid: string, props: Record<string, unknown>): StateEntry => ({
      front: "native",
      token,
      uid,
      name: "access",
      props,
    });
    try {
      expect((await report([])).sort()).toEqual([o.intruderRole.uid, inTeam.uid].sort());
      // On the folder only: its own bindings, not its sub-folder's.
      expect(
        await report([access("platform:iam:GroupAccess", o.platform.uid, { groupUid: o.platform.uid })]),
      ).toEqual([inTeam.uid]);
      // On the folder and everything under it.
      expect(
        await report([
          access("platform:iam:GroupAccess", o.platform.uid, { groupUid: o.platform.uid, scope: "subtree" }),
        ]),
      ).toEqual([]);
      // A state that records only the id (an import): the id names the scope, `/**` the subtree.
      expect(await report([access("platform:iam:GroupAccess", `${o.platform.uid}/**`, {})])).toEqual([]);
      expect(await report([access("platform:iam:GroupAccess", o.platform.uid, {})])).toEqual([inTeam.uid]);
      // Every binding of one identity, wherever it is.
      expect(
        await report([
          access("platform:iam:IdentityAccess", o.intruder.uid, { identityUid: o.intruder.uid }),
        ]),
      ).toEqual([]);
      // An access resource whose group is gone is reported gone.
      const ghost = `${o.platform.uid}/00000000000000ff`;
      const file = o.write("ghost.json", [access("platform:iam:GroupAccess", ghost, { groupUid: ghost })]);
      const { io } = await run([org, "--state", file, "--json"]);
      expect((JSON.parse(io.out) as Report).missing).toEqual([
        expect.objectContaining({ type: "platform:iam:GroupAccess", uid: ghost }),
      ]);
    } finally {
      await c.roleBindings.delete(inTeam.uid);
      await c.groups.delete(team.uid);
    }
  });

  it("makes the same few list calls however many objects and states: one page of 200 per kind", async () => {
    const c = emulator.client;
    const callsFor = async (states: string[]) => {
      emulator.clearRequestLog();
      const { io } = await run([org, ...states.flatMap((s) => ["--state", s]), "--json"]);
      const report = JSON.parse(io.out) as Report;
      const log = emulator.requestLog();
      expect(log).toHaveLength(report.calls);
      expect(log.filter((r) => r.method !== "GET")).toEqual([]);
      const lists = log.filter((r) => !r.path.endsWith(org));
      for (const r of lists) {
        expect(String(r.query["page_size"])).toBe("200");
        expect(String(r.query["uidp.descendants_of"])).toBe(org);
      }
      return { calls: report.calls, lists: lists.length };
    };
    // One GET of the group, one list per kind, and the GET of the organization's own association.
    const few = await callsFor([o.appFile]);
    expect(few).toEqual({ calls: 9, lists: 7 });
    expect(await callsFor([o.appFile, o.sharedFile, o.appFile])).toEqual(few);
    // 450 more identities: their list takes three pages, nothing else changes.
    const folder = await c.groups.create(org, { name: "many" });
    for (let i = 0; i < 450; i += 50)
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          c.identities.create(folder.uid, { name: `ci-${i + j}`, claimMatch: claim(`ci-${i + j}`) }),
        ),
      );
    try {
      expect(await callsFor([o.appFile, o.sharedFile])).toEqual({ calls: 11, lists: 9 });
    } finally {
      for await (const i of c.identities.list({ childrenOf: folder.uid, pageSize: 200 }))
        await c.identities.delete(i.uid);
      await c.groups.delete(folder.uid);
    }
  });

  it("reports exactly the complement of what random states manage, in the same calls (fast-check)", async () => {
    const { found } = await listGroup(emulator.client, org);
    const objects = found.filter((f) => !(f.kind === "group" && f.uid === org));
    const entry = (f: (typeof objects)[number], front: "dynamic" | "native"): StateEntry => ({
      front,
      token: IMPORT_KINDS[f.kind].token,
      uid: f.uid,
      name: `${f.kind}-${f.uid.slice(-16)}`,
    });
    const split = fc.array(
      fc.record({
        state: fc.nat(2),
        front: fc.constantFrom("dynamic", "native") as fc.Arbitrary<"dynamic" | "native">,
        managed: fc.boolean(),
      }),
      {
        minLength: objects.length,
        maxLength: objects.length,
      },
    );
    await fc.assert(
      fc.asyncProperty(split, async (choices) => {
        const entries: StateEntry[][] = [[], [], []];
        objects.forEach((f, n) => {
          const c = choices[n]!;
          if (c.managed) entries[c.state]!.push(entry(f, c.front));
        });
        const states = entries.map((e, n) => ({
          file: `s${n}.json`,
          contents: readState(JSON.stringify(stateExport(`s${n}`, e)), `s${n}.json`),
        }));
        const { report, document } = await reportUnmanaged(emulator.client, org, states);
        const expected = objects.filter((_, n) => !choices[n]!.managed).map((f) => f.uid);
        expect(report.unmanaged.map((u) => u.uid).sort()).toEqual(expected.sort());
        expect(document.resources.map((r) => r.id).sort()).toEqual(expected.sort());
        expect(report.missing).toEqual([]);
        const sum = (key: "managed" | "total") =>
          LISTED_KINDS.reduce((total, kind) => total + report.coverage[kind][key], 0);
        expect(sum("total")).toBe(objects.length);
        expect(sum("managed")).toBe(objects.length - expected.length);
        expect(report.calls).toBe(9);
      }),
      { seed: 2805, numRuns: 25 },
    );
  });

  const refusals: [string, () => string[], RegExp][] = [
    ["an empty --backend", () => [org, "--backend="], /--backend needs a URL/],
    ["a --stacks pattern with an empty part", () => [org, "--stacks", "a//b"], /--stacks takes a pattern/],
    ["no group", () => ["--state", o.appFile], /report needs a group uid/],
    ["a missing state file", () => [org, "--state", path.join(dir, "none.json")], /cannot read .*: ENOENT$/],
    [
      "a file that is not JSON",
      () => {
        fs.writeFileSync(path.join(dir, "stack.yaml"), "resources: []\n");
        return [org, "--state", path.join(dir, "stack.yaml")];
      },
      /stack\.yaml is not a Pulumi state export: it is not JSON$/,
    ],
    [
      "JSON that is not a state export",
      () => {
        fs.writeFileSync(path.join(dir, "tf.json"), JSON.stringify({ version: 4, resources: [] }));
        return [org, "--state", path.join(dir, "tf.json")];
      },
      /is not a Pulumi state export: it has no "deployment" \(make it with pulumi stack export\)$/,
    ],
    [
      "a uid that is not a group",
      () => [o.deployer.uid, "--state", o.appFile],
      /is an identity, not a group$/,
    ],
  ];

  it.each(refusals)("refuses %s: one line, exit 1, nothing on stdout", async (_what, args, message) => {
    const out = path.join(dir, "refused.json");
    const { code, io } = await run([...args(), "--out", out]);
    expect(code).toBe(1);
    expect(io.err).toEqual([expect.stringMatching(/^platform-import: /)]);
    expect(io.err[0]).toMatch(message);
    expect(io.out).toBe("");
    expect(fs.existsSync(out)).toBe(false);
  });
});

describe("reading exported states", () => {
  it("knows this package's resources on both fronts and ignores the rest", () => {
    expect(tokenOf({ type: "platform:iam:RoleBinding" })).toBe("platform:iam:RoleBinding");
    expect(tokenOf({ type: "pulumi-nodejs:dynamic/iam:RoleBinding" })).toBe("platform:iam:RoleBinding");
    expect(
      tokenOf({
        type: "pulumi-nodejs:dynamic:Resource",
        inputs: {
          __provider: 'exports.handler = require("pulumi-platform/dist/provider/iam/group-invite.provider")',
        },
      }),
    ).toBe("platform:iam:GroupInvite");
    expect(
      tokenOf({ type: "pulumi-nodejs:dynamic:Resource", inputs: { __provider: "function () {}" } }),
    ).toBe(undefined);
    expect(tokenOf({ type: "pulumi:providers:platform" })).toBe(undefined);
    expect(tokenOf({ type: "pulumi:pulumi:Stack" })).toBe(undefined);
    expect(tokenOf({ type: "aws:s3/bucket:Bucket" })).toBe(undefined);
  });

  it("takes every kind of the import table, by its id", () => {
    const entries: StateEntry[] = LISTED_KINDS.map((kind, i) => ({
      front: i % 2 === 0 ? "dynamic" : "native",
      token: IMPORT_KINDS[kind].token,
      uid: `${"a".repeat(40)}/${String(i).padStart(16, "0")}`,
      name: kind,
    }));
    const { managed } = readState(JSON.stringify(stateExport("s", entries)), "s.json");
    expect(managed.map((m) => [m.kind, m.token, m.uid])).toEqual(
      entries.map((e, i) => [LISTED_KINDS[i], e.token, e.uid]),
    );
  });
});

/**
 * Many stacks (commands/stacks.ts, commands/states.ts, commands/import/conflicts.ts): the states of every stack of a
 * backend, read through a stand-in for the engine (one `stack ls`, one `stack export` per stack, a few at a time,
 * never `--show-secrets`, no passphrase); which backend; `--stacks` patterns; a stack the engine cannot export,
 * named while the rest is read; a password in a backend URL never shown; what a secret hides, never guessed. Then
 * `platform-import report` and `platform-access review` over such a backend against the in-process emulator: three
 * stacks managing parts of one organization and objects made by hand; each object with the stack and resource that
 * manage it, exactly the hand-made ones unmanaged; the three kinds of conflict and their exit code; the review's
 * managing stack of each binding.
 */
import fc from "fast-check";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { EXIT_CONFLICT, EXIT_UNMANAGED, main as importMain } from "../../commands/import/cli";
import { main as accessMain } from "../../commands/access/cli";
import type { Report } from "../../commands/import/report";
import type { Review } from "../../commands/access/review";
import { EXPORT_CONCURRENCY, displayUrl, readSources, stackMatcher } from "../../commands/stacks";
import { readState } from "../../commands/states";
import { IMPORT_KINDS } from "../../commands/kinds";
import { useOrganization } from "../organization";
import { capture, stateExport, type StateEntry } from "./fixtures";
import { fakeBackend, fakeEngine, secret, type FakeBackend } from "./stacks-fixtures";

jest.setTimeout(120_000);

const BACKEND = "postgres://pulumi:s3cret-pw@db.internal:5432/state?sslmode=disable";

describe("reading the stacks of a backend", () => {
  const states = Object.fromEntries(
    [
      "organization/app/dev",
      "organization/app/prod",
      "organization/web/prod",
      "organization/web/qa",
      "legacy",
    ].map((name) => [name, stateExport(name.split("/")[1] ?? name, [])]),
  );
  const read = (backend: FakeBackend, options: Partial<Parameters<typeof readSources>[0]> = {}) =>
    readSources({ files: [], backend: BACKEND, env: {}, engine: fakeEngine(backend), ...options });

  it("lists once and exports each stack once, a few at a time, never opening secrets", async () => {
    const many = Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [`organization/p/s${i}`, states["legacy"]]),
    );
    const backend = fakeBackend(BACKEND, many);
    const sources = await read(backend, {
      env: {
        PULUMI_CONFIG_PASSPHRASE: "the team's",
        PULUMI_CONFIG_PASSPHRASE_FILE: "/run/pass",
        HOME: "/home/ci",
      },
    });
    expect(sources.states.map((s) => s.file)).toEqual(Object.keys(many).sort());
    expect(sources.invocations).toBe(13);
    expect(backend.calls.map((c) => c.args.slice(0, 2).join(" "))).toEqual([
      "stack ls",
      ...Array.from({ length: 12 }, () => "stack export"),
    ]);
    expect(backend.calls[0]!.args).toEqual(["stack", "ls", "--all", "--json", "--fully-qualify-stack-names"]);
    for (const call of backend.calls) {
      expect(call.args).not.toContain("--show-secrets");
      expect(call.env["PULUMI_BACKEND_URL"]).toBe(BACKEND);
      expect(call.env).not.toHaveProperty("PULUMI_CONFIG_PASSPHRASE");
      expect(call.env).not.toHaveProperty("PULUMI_CONFIG_PASSPHRASE_FILE");
      expect(call.env["HOME"]).toBe("/home/ci");
    }
    expect(backend.maxInFlight).toBe(EXPORT_CONCURRENCY);
    // The engine's PostgreSQL store waits forever when stack ls reads as many stacks at once as it has connections.
    for (const call of backend.calls) expect(call.env["PULUMI_DIY_BACKEND_PARALLEL"]).toBe("1");
    // Shown with its password masked.
    expect(sources.backend).toBe("postgres://pulumi:***@db.internal:5432/state?sslmode=disable");
  });

  it("reads --backend, else PULUMI_BACKEND_URL, else the backend pulumi whoami names", async () => {
    const backend = fakeBackend("file:///srv/pulumi", states);
    const given = await read(backend, { backend: "file:///srv/pulumi" });
    expect(given.invocations).toBe(6);
    expect(backend.calls.map((c) => c.env["PULUMI_DIY_BACKEND_PARALLEL"])).toEqual(Array(6).fill(undefined));
    backend.calls = [];
    const fromEnv = await read(backend, { backend: true, env: { PULUMI_BACKEND_URL: "file:///srv/pulumi" } });
    expect(fromEnv.invocations).toBe(6);
    expect(backend.calls.map((c) => c.args[0])).not.toContain("whoami");
    backend.calls = [];
    backend.current = "file:///srv/pulumi";
    const current = await read(backend, { backend: true });
    expect(current.backend).toBe("file:///srv/pulumi");
    expect(backend.calls.map((c) => c.args.join(" "))[0]).toBe("whoami --json");
    expect(current.invocations).toBe(7);
    expect(current.states).toHaveLength(5);
    // --stacks alone reads the current backend too.
    const patterned = await read(backend, { backend: undefined, patterns: ["prod"] });
    expect(patterned.states.map((s) => s.file)).toEqual(["organization/app/prod", "organization/web/prod"]);
  });

  it.each([
    ["*/prod", ["organization/app/prod", "organization/web/prod"]],
    ["organization/web/*", ["organization/web/prod", "organization/web/qa"]],
    ["web/q?", ["organization/web/qa"]],
    [
      "**",
      [
        "legacy",
        "organization/app/dev",
        "organization/app/prod",
        "organization/web/prod",
        "organization/web/qa",
      ],
    ],
    ["legacy", ["legacy"]],
    ["app", []],
    ["organization/app.dev", []],
  ])("--stacks %s selects by the name's last parts", (pattern, expected) => {
    const names = Object.keys(states).sort();
    expect(names.filter(stackMatcher(pattern))).toEqual(expected);
  });

  it("names a stack the engine cannot export, with its reason, and reads the others", async () => {
    const backend = fakeBackend(BACKEND, states);
    backend.stacks.set("organization/app/qa", {
      error: "the stack's deployment was written by a newer version of the engine (v4)",
    });
    backend.stacks.set("organization/app/odd", { text: "{}" });
    const sources = await read(backend);
    expect(sources.states).toHaveLength(5);
    expect(sources.unreadable).toEqual([
      {
        stack: "organization/app/odd",
        reason: `organization/app/odd is not a Pulumi state export: it has no "deployment" (make it with pulumi stack export)`,
      },
      {
        stack: "organization/app/qa",
        reason: "the stack's deployment was written by a newer version of the engine (v4)",
      },
    ]);
  });

  it("refuses, in one line with the password masked, a backend it cannot list", async () => {
    const backend = fakeBackend(BACKEND, states);
    backend.listError = `failed to connect to ${BACKEND}: password authentication failed (password s3cret-pw)`;
    await expect(read(backend)).rejects.toThrow(
      "cannot list the stacks of postgres://pulumi:***@db.internal:5432/state?sslmode=disable: failed to connect to " +
        "postgres://pulumi:***@db.internal:5432/state?sslmode=disable: password authentication failed (password ***)",
    );
    const nowhere = fakeBackend(BACKEND, states);
    nowhere.current = "";
    await expect(read(nowhere, { backend: true })).rejects.toThrow(
      /^no backend to read: .*give --backend URL/,
    );
  });

  it("masks the password of any URL the engine names, the one it was given or not", async () => {
    const char = fc.constantFrom(..."aZ09-._~!$&'()*+,;=:/?#[]@%\"`");
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("postgres", "postgresql", "mysql", "https", "s3+http"),
        fc.stringMatching(/^[a-z0-9._-]{0,8}$/),
        fc.string({ unit: char, minLength: 1, maxLength: 24 }),
        async (scheme, user, password) => {
          const stored = `${scheme}://${user}:${password}@db.internal:5432/state`;
          const shown = `${scheme}://${user}:***@db.internal:5432/state`;
          // No PULUMI_BACKEND_URL: whoami fails, naming the backend pulumi login stored.
          const engine = () => async () => ({
            code: 255,
            stdout: "",
            stderr: `error: could not reach ${stored}\ncheck ${stored}: connection refused\n`,
          });
          await expect(readSources({ files: [], backend: true, env: {}, engine })).rejects.toThrow(
            `no backend to read: pulumi whoami names none (could not reach ${shown} / check ${shown}: ` +
              "connection refused); give --backend URL or run pulumi login",
          );
        },
      ),
      { seed: 20261127, numRuns: 200 },
    );
  });

  it("masks a URL's password and credential-like query values, and leaves other URLs as they are", () => {
    expect(displayUrl("s3://bucket/state?region=eu-west-1")).toBe("s3://bucket/state?region=eu-west-1");
    expect(displayUrl("file:///home/ci/.pulumi")).toBe("file:///home/ci/.pulumi");
    expect(displayUrl("azblob://container?storage_account=acme&access_key=AKIA1234")).toBe(
      "azblob://container?storage_account=acme&access_key=***",
    );
    expect(displayUrl("postgres://u:p%40ss@h/db")).toBe("postgres://u:***@h/db");
  });

  it("reads --state files and a backend together, a file given twice once", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "platform-stacks-"));
    try {
      const file = path.join(dir, "by-hand.json");
      fs.writeFileSync(file, JSON.stringify(stateExport("by-hand", [])));
      const backend = fakeBackend(BACKEND, states);
      const sources = await read(backend, { files: [file, file], patterns: ["*/web/*"] });
      expect(sources.states.map((s) => s.file)).toEqual([
        file,
        "organization/web/prod",
        "organization/web/qa",
      ]);
      expect(sources.stacks).toBe(2);
      // Files alone: offline, no engine.
      const offline = await readSources({ files: [file], env: {}, engine: fakeEngine(backend) });
      expect(offline.invocations).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("what a secret in a state hides is never guessed", () => {
  const group = `${"a".repeat(40)}/0123456789abcdef`;
  const access = (props: Record<string, unknown>, uid: string): StateEntry => ({
    front: "native",
    token: "platform:iam:GroupAccess",
    uid,
    name: "governs",
    props,
  });
  const read = (entries: StateEntry[]) => readState(JSON.stringify(stateExport("s", entries)), "s");

  it("takes an access resource's scope from its id when its scope input is secret", () => {
    const subtree = read([access({ groupUid: group, scope: secret() }, `${group}/**`)]);
    expect(subtree.access[0]!.scope).toEqual({ kind: "group", groupUid: group, subtree: true });
    const direct = read([access({ groupUid: secret(), scope: "group" }, group)]);
    expect(direct.access[0]!.scope).toEqual({ kind: "group", groupUid: group, subtree: false });
    // The declared bindings, unless they are secret.
    const declared = read([
      access(
        { groupUid: group, bindings: [{ identityUid: `${group}/1111111111111111`, roleUid: "r" }] },
        group,
      ),
      access({ groupUid: group, bindings: secret() }, group),
      access({ groupUid: group, bindings: [{ identityUid: secret(), roleUid: "r" }] }, group),
    ]);
    expect(declared.access.map((a) => a.declared)).toEqual([
      [{ groupUid: group, identityUid: `${group}/1111111111111111`, roleUid: "r" }],
      undefined,
      undefined,
    ]);
  });

  it("keeps a role binding managed by its id when its inputs are secret, without a key", () => {
    const uid = `${group}/2222222222222222`;
    const { managed } = read([
      {
        front: "dynamic",
        token: IMPORT_KINDS.roleBinding.token,
        uid,
        name: "b",
        props: { groupUid: group, identityUid: secret(), roleUid: "r" },
      },
    ]);
    expect(managed).toEqual([
      {
        kind: "roleBinding",
        token: IMPORT_KINDS.roleBinding.token,
        uid,
        urn: expect.stringContaining("::b"),
        state: "s",
      },
    ]);
  });

  it("names a resource whose kind or scope only a secret would tell", () => {
    const state = stateExport("s", [access({ groupUid: secret() }, "")]);
    state.deployment.resources.push({
      urn: "urn:pulumi:dev::s::pulumi-nodejs:dynamic:Resource::old",
      custom: true,
      id: `${group}/3333333333333333`,
      type: "pulumi-nodejs:dynamic:Resource",
      inputs: { __provider: secret() },
      outputs: { __provider: secret() },
      parent: state.deployment.resources[0]!.urn,
    } as (typeof state.deployment.resources)[number]);
    const contents = readState(JSON.stringify(state), "s");
    expect(contents.managed).toEqual([]);
    expect(contents.access).toEqual([]);
    expect(contents.unreadable).toEqual([
      {
        urn: expect.stringContaining("GroupAccess::governs"),
        state: "s",
        reason: expect.stringContaining("secret"),
      },
      {
        urn: "urn:pulumi:dev::s::pulumi-nodejs:dynamic:Resource::old",
        state: "s",
        reason: expect.stringMatching(/provider code the state keeps secret/),
      },
    ]);
  });
});

describe("platform-import report and platform-access review over a backend's stacks", () => {
  const emulated = useOrganization();
  let org: string;
  let env: Record<string, string>;
  /** The organization: what each stack made, and what was made by hand. */
  let o: Awaited<ReturnType<typeof organization>>;

  async function organization() {
    const c = emulated.client;
    const viewer = emulated.role("viewer");
    const owner = (await c.roleBindings.list({ childrenOf: org })).items[0]!;
    // The platform stack (TypeScript, dynamic front): folders, a custom role, its own CI, team-a's access.
    const teams = await emulated.folder("teams");
    const teamA = await emulated.folder("team-a", teams.uid);
    const teamB = await emulated.folder("team-b", teams.uid);
    const deployer = await c.roles.create(org, { name: "deployer", capabilities: ["CAP_REPO_LIST"] });
    const platformCi = await emulated.identity("platform-ci");
    const platformViews = await c.roleBindings.create(teamA.uid, {
      identityUid: platformCi.uid,
      roleUid: viewer,
    });
    // Team A's stack (YAML, the plugin): its robot and its binding, in the folder the platform governs.
    const aCi = await emulated.identity("a-ci", teamA.uid);
    const aDeploys = await c.roleBindings.create(teamA.uid, { identityUid: aCi.uid, roleUid: deployer.uid });
    // Team B's stack (Python, the plugin).
    const bCi = await emulated.identity("b-ci", teamB.uid);
    const bDeploys = await c.roleBindings.create(teamB.uid, { identityUid: bCi.uid, roleUid: deployer.uid });
    // By hand.
    const shadow = await emulated.folder("shadow");
    const byHand = await emulated.identity("by-hand", teamB.uid);
    const byHandViews = await c.roleBindings.create(teamB.uid, { identityUid: byHand.uid, roleUid: viewer });

    const dynamic = (token: string, uid: string, name: string, props = {}): StateEntry => ({
      front: "dynamic",
      token,
      uid,
      name,
      props,
    });
    const native = (token: string, uid: string, name: string, props = {}): StateEntry => ({
      front: "native",
      token,
      uid,
      name,
      props,
    });
    const bindingProps = (group: string, identity: string, role: string) => ({
      groupUid: group,
      identityUid: identity,
      roleUid: role,
    });
    const platform: StateEntry[] = [
      dynamic(IMPORT_KINDS.group.token, teams.uid, "teams"),
      dynamic(IMPORT_KINDS.group.token, teamA.uid, "team-a"),
      dynamic(IMPORT_KINDS.group.token, teamB.uid, "team-b"),
      dynamic(IMPORT_KINDS.role.token, deployer.uid, "deployer"),
      dynamic(IMPORT_KINDS.identity.token, platformCi.uid, "platform-ci"),
      dynamic("platform:iam:GroupAccess", teamA.uid, "team-a-access", {
        groupUid: teamA.uid,
        bindings: [{ identityUid: platformCi.uid, roleUid: viewer }],
      }),
    ];
    const teamAStack: StateEntry[] = [
      native(IMPORT_KINDS.identity.token, aCi.uid, "a-ci"),
      native(
        IMPORT_KINDS.roleBinding.token,
        aDeploys.uid,
        "a-ci-deploys",
        bindingProps(teamA.uid, aCi.uid, deployer.uid),
      ),
    ];
    const teamBStack: StateEntry[] = [
      native(IMPORT_KINDS.identity.token, bCi.uid, "b-ci", { description: secret() }),
      native(
        IMPORT_KINDS.roleBinding.token,
        bDeploys.uid,
        "b-ci-deploys",
        bindingProps(teamB.uid, bCi.uid, deployer.uid),
      ),
    ];
    return {
      viewer,
      owner,
      teams,
      teamA,
      teamB,
      deployer,
      platformCi,
      platformViews,
      aCi,
      aDeploys,
      bCi,
      bDeploys,
      shadow,
      byHand,
      byHandViews,
      platform,
      teamAStack,
      teamBStack,
      backend: (extra: Record<string, StateEntry[]> = {}) =>
        fakeBackend(BACKEND, {
          "organization/platform/dev": stateExport("platform", platform),
          "organization/team-a/dev": stateExport("team-a", teamAStack),
          "organization/team-b/dev": stateExport("team-b", teamBStack),
          ...Object.fromEntries(
            Object.entries(extra).map(([name, entries]) => [name, stateExport(name.split("/")[1]!, entries)]),
          ),
        }),
    };
  }

  beforeAll(async () => {
    org = emulated.uid;
    env = {
      PLATFORM_API_URL: emulated.emulator.url,
      PLATFORM_TOKEN: emulated.emulator.token,
      // The folders were made by this process: a 404 on one (its association) is an answer, not a delay.
      PLATFORM_PROPAGATION_WINDOW_MS: "0",
    };
    o = await organization();
  });

  async function report(backend: FakeBackend, args: string[] = []) {
    const io = Object.assign(capture(env), { engine: fakeEngine(backend) });
    const code = await importMain(["report", org, "--backend", BACKEND, ...args], io);
    return { code, io };
  }
  const reportJson = async (backend: FakeBackend, args: string[] = []) => {
    const { code, io } = await report(backend, [...args, "--json"]);
    if (io.out === "") throw new Error(io.err.join("\n"));
    return { code, report: JSON.parse(io.out) as Report, err: io.err };
  };
  const managedBy = (r: Report) =>
    new Map(r.managed.map((m) => [m.uid, m.managedBy.map((b) => `${b.stack} ${b.urn.split("::").pop()}`)]));

  it("names the stack and resource of every object, exactly the hand-made ones unmanaged", async () => {
    const { code, report: r, err } = await reportJson(o.backend());
    expect(r.backend).toBe(displayUrl(BACKEND));
    expect(r.states).toEqual([
      "organization/platform/dev",
      "organization/team-a/dev",
      "organization/team-b/dev",
    ]);
    expect(r.unmanaged.map((u) => u.uid).sort()).toEqual(
      [o.owner.uid, o.shadow.uid, o.byHand.uid, o.byHandViews.uid].sort(),
    );
    expect(managedBy(r)).toEqual(
      new Map([
        [o.teams.uid, ["organization/platform/dev teams"]],
        [o.teamA.uid, ["organization/platform/dev team-a"]],
        [o.teamB.uid, ["organization/platform/dev team-b"]],
        [o.deployer.uid, ["organization/platform/dev deployer"]],
        [o.platformCi.uid, ["organization/platform/dev platform-ci"]],
        [o.platformViews.uid, ["organization/platform/dev team-a-access"]],
        [o.aCi.uid, ["organization/team-a/dev a-ci"]],
        [o.aDeploys.uid, ["organization/team-a/dev a-ci-deploys", "organization/platform/dev team-a-access"]],
        [o.bCi.uid, ["organization/team-b/dev b-ci"]],
        [o.bDeploys.uid, ["organization/team-b/dev b-ci-deploys"]],
      ]),
    );
    // Team A's binding is in the platform's GroupAccess scope: the platform's next up would delete it.
    expect(r.conflicts).toEqual([
      {
        conflict: "binding-in-scope",
        uid: o.aDeploys.uid,
        binding: { groupUid: o.teamA.uid, identityUid: o.aCi.uid, roleUid: o.deployer.uid },
        resources: [
          {
            stack: "organization/team-a/dev",
            urn: "urn:pulumi:dev::team-a::platform:iam:RoleBinding::a-ci-deploys",
            type: "platform:iam:RoleBinding",
          },
          {
            stack: "organization/platform/dev",
            urn: "urn:pulumi:dev::platform::pulumi-nodejs:dynamic/iam:GroupAccess::team-a-access",
            type: "platform:iam:GroupAccess",
            scope: { kind: "group", groupUid: o.teamA.uid, subtree: false },
          },
        ],
      },
    ]);
    expect(code).toBe(EXIT_CONFLICT);
    expect(err.find((l) => l.includes("engine invocations"))).toMatch(
      /^postgres:\/\/pulumi:\*\*\*@db\.internal:5432\/state\?sslmode=disable: 3 stacks read, 0 not \(4 engine invocations, \d+ ms\)$/,
    );
    expect(JSON.stringify(r)).not.toContain("s3cret-pw");
  });

  it("prints the conflict first, then each stack with what it manages", async () => {
    const { code, io } = await report(o.backend());
    expect(code).toBe(EXIT_CONFLICT);
    expect(io.out).toMatch(
      / against 3 stacks of postgres:\/\/pulumi:\*\*\*@db.internal:5432\/state\?sslmode=disable: 4 unmanaged, 0 managed but gone, 1 conflict\n/,
    );
    expect(io.out).toContain(
      `conflicts (1):\n  role binding workload identity a-ci holds role deployer on folder team-a ` +
        `(${o.aDeploys.uid}): declared by ` +
        `organization/team-a/dev: a-ci-deploys (RoleBinding), and in the scope of organization/platform/dev: ` +
        `team-a-access (GroupAccess), which holds the bindings on group team-a in folder teams (${o.teamA.uid}): its next ` +
        `up deletes the binding unless it declares it, and the other's next up makes it again\n`,
    );
    expect(io.out).toContain(
      `  organization/team-b/dev (2):\n    identity  ${o.bCi.uid}  b-ci in folder team-b  [b-ci, Identity]\n`,
    );
    expect(io.out).toContain(
      `  organization/platform/dev (7):\n    group  ${o.teams.uid}  teams in organization demo-org  [teams, Group]\n`,
    );
    expect(io.out.indexOf("conflicts (1)")).toBeLessThan(io.out.indexOf("coverage"));
  });

  it("names a stack it cannot read and reports the rest; exit 2 without a conflict", async () => {
    const backend = o.backend();
    backend.stacks.set("organization/broken/dev", {
      error: "failed to load checkpoint: unexpected end of JSON input",
    });
    const all = await reportJson(backend);
    expect(all.code).toBe(EXIT_CONFLICT);
    expect(all.report.unreadable).toEqual([
      { stack: "organization/broken/dev", reason: "failed to load checkpoint: unexpected end of JSON input" },
    ]);
    expect(all.err).toContain(
      "not read: organization/broken/dev: failed to load checkpoint: unexpected end of JSON input",
    );
    // Team B's stack and the broken one only: no conflict, the platform's objects unmanaged, exit 2.
    const some = await reportJson(backend, ["--stacks", "*/team-b/*", "--stacks", "broken/dev"]);
    expect(some.report.states).toEqual(["organization/team-b/dev"]);
    expect(some.report.conflicts).toEqual([]);
    expect(some.report.unmanaged.map((u) => u.uid)).toContain(o.teams.uid);
    expect(some.code).toBe(EXIT_UNMANAGED);
    const text = await report(backend, ["--stacks", "*/team-b/*", "--stacks", "broken/dev"]);
    expect(text.io.out).toContain(
      "not read (1): what they manage may be reported unmanaged below\n  organization/broken/dev: failed to load checkpoint",
    );
  });

  it("finds an object held twice, overlapping scopes, and bindings in another stack's scope", async () => {
    const governance: StateEntry[] = [
      // Adopted again: team A's robot.
      { front: "native", token: IMPORT_KINDS.identity.token, uid: o.aCi.uid, name: "a-ci-again" },
      // Everything under teams: holds team-a's and team-b's bindings, and the platform's GroupAccess scope.
      {
        front: "native",
        token: "platform:iam:GroupAccess",
        uid: `${o.teams.uid}/**`,
        name: "teams-access",
        props: { groupUid: o.teams.uid, scope: "subtree", bindings: [] },
      },
      // The platform's CI, everywhere, declaring none: it fights the platform's GroupAccess, which declares the CI's
      // binding on team-a; not teams-access, which declares none there either (both would delete it).
      {
        front: "native",
        token: "platform:iam:IdentityAccess",
        uid: o.platformCi.uid,
        name: "platform-ci-access",
        props: { identityUid: o.platformCi.uid },
      },
    ];
    const { code, report: r } = await reportJson(o.backend({ "organization/governance/dev": governance }));
    expect(code).toBe(EXIT_CONFLICT);
    const said = r.conflicts.map((c) =>
      [c.conflict, ...c.resources.map((x) => `${x.stack.split("/")[1]}:${x.urn.split("::").pop()}`)].join(
        " ",
      ),
    );
    expect(said.sort()).toEqual(
      [
        "duplicate governance:a-ci-again team-a:a-ci",
        "binding-in-scope team-a:a-ci-deploys platform:team-a-access governance:teams-access",
        "binding-in-scope team-b:b-ci-deploys governance:teams-access",
        "overlapping-scopes governance:teams-access platform:team-a-access",
        "overlapping-scopes governance:platform-ci-access platform:team-a-access",
      ].sort(),
    );
    // On team-b only: what is fought over there, nothing of team-a.
    const io = Object.assign(capture(env), {
      engine: fakeEngine(o.backend({ "organization/governance/dev": governance })),
    });
    await importMain(["report", o.teamB.uid, "--backend", BACKEND, "--json"], io);
    const onTeamB = (JSON.parse(io.out) as Report).conflicts.map((c) => c.conflict);
    expect(onTeamB).toEqual(["binding-in-scope"]);
  });

  it("review names the stack and resource that manage each identity and binding", async () => {
    const io = Object.assign(capture(env), { engine: fakeEngine(o.backend()) });
    expect(await accessMain(["review", org, "--backend", BACKEND, "--json"], io)).toBe(0);
    const review = JSON.parse(io.out) as Review;
    expect(review.states).toHaveLength(3);
    const identity = (uid: string) => review.identities.find((i) => i.uid === uid)!;
    const binding = (uid: string) => review.bindings.find((b) => b.uid === uid)!;
    const named = (m: { stack: string; urn: string }) => `${m.stack} ${m.urn.split("::").pop()}`;
    // The identity's own managers on the identity; each binding's on the binding, said once.
    expect(identity(o.aCi.uid).managedBy).toEqual([
      expect.objectContaining({ stack: "organization/team-a/dev", type: IMPORT_KINDS.identity.token }),
    ]);
    expect(binding(o.aDeploys.uid).managedBy!.map(named)).toEqual([
      "organization/team-a/dev a-ci-deploys",
      "organization/platform/dev team-a-access",
    ]);
    expect(
      review.bindings.filter((b) => b.identity === o.platformCi.uid).map((b) => b.managedBy!.map(named)),
    ).toEqual([["organization/platform/dev team-a-access"]]);
    expect(identity(o.byHand.uid)).toMatchObject({ unmanaged: true, managedBy: [] });
    expect(binding(o.byHandViews.uid).managedBy).toEqual([]);
    expect(identity(o.bCi.uid).unmanaged).toBe(false);
    // Every binding is named with what manages it (a list, empty when no stack does).
    for (const b of review.bindings) expect(Array.isArray(b.managedBy)).toBe(true);
    // As text, on each binding's line.
    const text = Object.assign(capture(env), { engine: fakeEngine(o.backend()) });
    await accessMain(["review", org, "--backend", BACKEND], text);
    expect(text.out).toMatch(
      /^ +workload identity a-ci: role deployer \[managed by organization\/team-a\/dev: platform:iam:RoleBinding "a-ci-deploys", organization\/platform\/dev: platform:iam:GroupAccess "team-a-access"\]$/m,
    );
    expect(text.out).toMatch(/^ +workload identity by-hand: built-in role viewer \[no stack\]$/m);
  });

  it("without --backend or --stacks, review reads no stack and marks nothing", async () => {
    const backend = o.backend();
    const io = Object.assign(capture(env), { engine: fakeEngine(backend) });
    await accessMain(["review", org, "--json"], io);
    expect(backend.calls).toEqual([]);
    const review = JSON.parse(io.out) as Review;
    expect(review.identities.every((i) => i.managedBy === null && i.unmanaged === null)).toBe(true);
    expect(review.bindings.every((b) => b.managedBy === null)).toBe(true);
  });

  it("report reads the engine's current backend when given no --state", async () => {
    const backend = o.backend();
    backend.current = BACKEND;
    const io = Object.assign(capture(env), { engine: fakeEngine(backend) });
    expect(await importMain(["report", org, "--json"], io)).toBe(EXIT_CONFLICT);
    expect(backend.calls.map((c) => c.args[0])).toEqual(["whoami", "stack", "stack", "stack", "stack"]);
  });

  // docs/many-stacks.md runs both without --backend, so a URL's password stays off the command line.
  it("with PULUMI_BACKEND_URL, report and review --stacks '**' read every stack of it", async () => {
    for (const argv of [
      ["report", org, "--json"],
      ["review", org, "--stacks", "**", "--json"],
    ]) {
      const backend = o.backend();
      backend.current = "file:///elsewhere";
      const io = Object.assign(capture({ ...env, PULUMI_BACKEND_URL: BACKEND }), {
        engine: fakeEngine(backend),
      });
      await (argv[0] === "report" ? importMain : accessMain)(argv, io);
      expect(backend.calls.map((c) => c.args.slice(0, 2).join(" "))).toEqual([
        "stack ls",
        ...Array<string>(3).fill("stack export"),
      ]);
      expect((JSON.parse(io.out) as { states: unknown[] }).states).toHaveLength(3);
    }
  });
});

/**
 * platform-access (commands/access/): review, who-can, what-can and least-privilege against the in-process
 * emulator, in every format, on organizations made through the API with direct, inherited and custom-role grants.
 * What each identity should hold is worked out from the plan (./access-fixtures), not by the code under test; a
 * fast-check property cross-checks review, who-can and what-can over random organizations.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import { BUILTIN_ROLES, type Emulator } from "../../emulator";
import {
  review,
  type Grant,
  type Review,
  type ReviewedBinding,
  type ReviewedRole,
} from "../../commands/access/review";
import { leastPrivilege, stackObjects } from "../../commands/access/least-privilege";
import { readAccess, type AccessData } from "../../commands/access/read";
import type { PlatformClient } from "../../sdk";
import { bindingsCsv, grantsCsv } from "../../commands/access/review-csv";
import { isAtOrBelow } from "../../sdk/access-model";
import {
  CAP_POOL,
  expectedGrants,
  makeOrg,
  orgPlans,
  useAccessCli,
  type MadeOrg,
  type OrgPlan,
} from "./access-fixtures";

jest.setTimeout(180_000);

const keysOf = (grants: Grant[]) =>
  new Map(
    grants.map((g) => [`${g.group} ${g.identity} ${g.capability}`, g.through.map((t) => t.binding).sort()]),
  );
const sorted = (m: Map<string, string[]>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
/**
 * "group identity capability" → binding uids, of the bindings as an answer says them once each: on the groups of the
 * review at or below the group each is bound on, with its role's capabilities (the answer's roles, each once).
 */
const expanded = (
  answer: { bindings: ReviewedBinding[]; roles: ReviewedRole[] },
  groups: readonly string[],
) => {
  const capabilities = new Map(answer.roles.map((r) => [r.uid, r.capabilities]));
  const out = new Map<string, string[]>();
  for (const b of answer.bindings)
    for (const group of groups.filter((g) => isAtOrBelow(g, b.group)))
      for (const c of capabilities.get(b.role) ?? []) {
        const key = `${group} ${b.identity} ${c}`;
        out.set(key, [...(out.get(key) ?? []), b.uid].sort());
      }
  return out;
};
/** The review's grants, expanded from its bindings. */
const grantsOf = (r: Review) =>
  expanded(
    r,
    r.groups.map((g) => g.uid),
  );
/** What-can's answer as JSON. */
type WhatCanJson = { group: string; groupName: string; bindings: ReviewedBinding[]; roles: ReviewedRole[] };
const viewer = BUILTIN_ROLES.find((r) => r.name === "viewer")!;

describe("platform-access", () => {
  const cli = useAccessCli();
  const { run } = cli;
  const json = <T = Review>(argv: string[], as?: Record<string, string>) => cli.json<T>(argv, as);
  let emulator: Emulator;
  let tmp: string;
  beforeAll(() => ({ emulator, tmp } = cli.get()));

  describe("on an organization with direct, inherited and custom-role grants", () => {
    // g0 = eng, g1 = eng/sandbox, g2 = ops; wl0 = ci in eng, wl1 = bot in ops; person0 = alice.
    const plan: OrgPlan = {
      groups: [-1, 0, -1],
      workloads: [0, 2],
      people: 1,
      roles: [
        { group: -1, capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST", "CAP_IAM_ROLE_BINDINGS_CREATE"] },
      ],
      bindings: [
        { identity: 0, role: 0, group: 0 },
        { identity: 1, role: "viewer", group: 2 },
        { identity: 2, role: "viewer", group: -1 },
      ],
    };
    let made: MadeOrg;
    let eng: string, sandbox: string, ops: string, ci: string, bot: string, alice: string;

    beforeAll(async () => {
      emulator.reset();
      made = await makeOrg(emulator, plan);
      [, eng, sandbox, ops] = made.groups as [string, string, string, string];
      [ci, bot, alice] = made.identities.map((i) => i.uid) as [string, string, string];
      // ci federates once: a token exchange moves its lastSeenTime past its createTime (bot's stays there).
      await emulator.client.identities.update(ci, {
        claimMatch: { issuer: `${emulator.url}/oidc`, subject: "wl0" },
      });
      const idToken = await emulator.mintIdToken({ subject: "wl0" });
      const exchanged = await fetch(
        `${emulator.url}/sts/exchange?aud=${encodeURIComponent(emulator.url)}&identity=${encodeURIComponent(ci)}`,
        { headers: { authorization: `Bearer ${idToken}` } },
      );
      expect(exchanged.status).toBe(200);
    });

    it("review --json says each binding once, with its reach; expanded, exactly the grants", async () => {
      const r = await json(["review", made.org]);
      expect(r).not.toHaveProperty("grants");
      expect(sorted(grantsOf(r))).toEqual(sorted(expectedGrants(made)));
      // --expand: every grant, with the bindings that grant it.
      const full = await json(["review", made.org, "--expand"]);
      expect(sorted(keysOf(full.grants!))).toEqual(sorted(expectedGrants(made)));
      expect({ ...full, grants: undefined, at: r.at }).toEqual({ ...r, grants: undefined });
      expect(r.groups.map((g) => [g.uid, g.depth])).toEqual([
        [made.org, 0],
        ...[eng, sandbox, ops].sort().map((g) => [g, g.split("/").length - 1]),
      ]);
      expect(r.partial).toEqual([]);
      // ci's custom role, bound on eng: held on eng directly and on sandbox through inheritance, nowhere else.
      const ciGrants = full.grants!.filter((g) => g.identity === ci);
      expect([...new Set(ciGrants.map((g) => g.group))].sort()).toEqual([eng, sandbox].sort());
      for (const g of ciGrants)
        expect(g.through).toEqual([
          expect.objectContaining({ boundOn: eng, roleName: "role0", inherited: g.group !== eng }),
        ]);
      const marks = new Map(r.identities.map((i) => [i.uid, i]));
      expect(marks.get(ci)).toMatchObject({ kind: "workload", privileged: true, unmanaged: null });
      expect(marks.get(bot)).toMatchObject({ kind: "workload", privileged: false });
      expect(marks.get(alice)).toMatchObject({ kind: "person", privileged: false, unused: null });
      expect(marks.get(emulator.userUid)).toMatchObject({ kind: "person", privileged: true });
      // The bindings themselves, each once with the names of what it refers to (what the page is built from).
      expect(r.bindings.map((b) => b.uid).sort()).toEqual(made.bindings.map((b) => b.uid).sort());
      expect(r.bindings).toContainEqual({
        uid: made.bindings[1]!.uid,
        identity: ci,
        identityName: "wl0",
        role: made.roles[0]!.uid,
        roleName: "role0",
        group: eng,
        groupName: "g0",
        below: 1,
        above: false,
        managedBy: null,
      });
      // Each role once, with its capabilities.
      expect(r.roles.find((x) => x.uid === made.roles[0]!.uid)).toEqual({
        uid: made.roles[0]!.uid,
        name: "role0",
        builtin: false,
        capabilities: [...plan.roles[0]!.capabilities].sort(),
      });
    });

    it("review marks a workload never federated unused: its lastSeenTime, returned from create on, is its createTime", async () => {
      const listed = await emulator.client.identities.get(bot);
      expect(listed.lastSeenTime).toBe(listed.createTime);
      const r = await json(["review", made.org, "--unused-after", "1d"]);
      const marks = new Map(r.identities.map((i) => [i.uid, i]));
      expect(marks.get(bot)).toMatchObject({ unused: true });
      expect(marks.get(bot)).not.toHaveProperty("lastSeenTime");
      expect(marks.get(ci)).toMatchObject({ unused: false, lastSeenTime: expect.any(String) });
      const text = await run(["review", made.org]);
      expect(text.out).toMatch(/workload identity wl1: unused \(never seen\); last seen never/);
    });

    it("review of a subgroup shows what is inherited from above it", async () => {
      const r = await json(["review", sandbox]);
      expect(sorted(grantsOf(r))).toEqual(sorted(expectedGrants(made, sandbox)));
      // Bindings above the group reviewed are in effect there: listed once, on the group they are on, above it.
      expect(r.bindings.filter((b) => b.identity === alice)).toEqual([
        expect.objectContaining({
          group: made.org,
          groupName: "demo-org",
          roleName: "viewer",
          above: true,
          below: 1,
        }),
      ]);
      const text = await run(["review", sandbox]);
      expect(text.out).toMatch(
        /^ {2}folder g1:\n(?: {4}.*\n)* {4}user person0: built-in role viewer, bound on organization demo-org above this review$/m,
      );
      // what-can under the subgroup: alice's binding above it, once, reaching all of it.
      const what = await run(["what-can", alice, "--in", sandbox]);
      expect(what.out.split("\n").slice(0, 2)).toEqual([
        "what user person0 holds under folder g1:",
        "  on folder g1 (bound on organization demo-org, above it), through built-in role viewer",
      ]);
    });

    it("who-can names every holder and why, as review does", async () => {
      const w = await json<{ grants: Grant[] }>(["who-can", "CAP_IAM_ROLE_BINDINGS_CREATE", "--on", sandbox]);
      expect(w.grants.map((g) => g.identity).sort()).toEqual([ci, emulator.userUid].sort());
      const text = await run(["who-can", "CAP_IAM_ROLE_BINDINGS_CREATE", "--on", sandbox]);
      expect(text.code).toBe(0);
      expect(text.out).toContain("wl0");
      // By name: no uid where no two share a name.
      expect(text.out).toMatch(/^ {2}on folder g1: workload identity wl0 \[privileged\]$/m);
      expect(text.out).toMatch(
        /through role role0, inherited from folder g0: CAP_IAM_ROLE_BINDINGS_CREATE\*$/m,
      );
      expect(text.out).toMatch(/through built-in role owner, inherited from organization demo-org: /);
      expect(text.out).not.toContain(made.org);
      const csv = await run(["who-can", "CAP_IAM_ROLE_BINDINGS_CREATE", "--on", sandbox, "--csv"]);
      const rows = csv.out.trimEnd().split("\r\n").slice(1);
      expect(rows.map((r) => r.split(",")[2]).sort()).toEqual([ci, emulator.userUid].sort());
      const none = await json<{ grants: Grant[] }>(["who-can", "CAP_REPO_DELETE", "--on", ops]);
      expect(none.grants.map((g) => g.identity)).toEqual([emulator.userUid]);
    });

    it("what-can says each binding of an identity once; a person's, in the one organization the caller sees", async () => {
      const mine = (identity: string) =>
        new Map([...expectedGrants(made)].filter(([k]) => k.split(" ")[1] === identity));
      const w = await json<WhatCanJson>(["what-can", ci]);
      expect(sorted(expanded(w, made.groups))).toEqual(sorted(mine(ci)));
      expect(w.bindings.map((b) => [b.roleName, b.groupName, b.below])).toEqual([["role0", "g0", 1]]);
      // --expand: the grants too, each group's.
      const full = await json<WhatCanJson & { grants: Grant[] }>(["what-can", ci, "--expand"]);
      expect(sorted(keysOf(full.grants))).toEqual(sorted(mine(ci)));
      const a = await json<WhatCanJson>(["what-can", alice, "--in", made.org]);
      expect(a.groupName).toBe("demo-org");
      expect(sorted(expanded(a, made.groups))).toEqual(sorted(mine(alice)));
      // Without --in, a person's answer is the organization's: the caller sees that one only.
      const one = await json<{ organizations: WhatCanJson[] }>(["what-can", alice]);
      expect(one.organizations.map((o) => [o.group, o.groupName])).toEqual([[made.org, "demo-org"]]);
      expect(one.organizations[0]!.bindings).toEqual(a.bindings);
      const text = await run(["what-can", alice, "--in", made.org]);
      expect(text.out).toBe(
        "what user person0 holds under organization demo-org:\n" +
          "  on organization demo-org and the 3 folders under it, through built-in role viewer\n" +
          `  built-in role viewer: ${viewer.capabilities.join(" ")}\n`,
      );
      const csv = await run(["what-can", alice, "--in", made.org, "--csv"]);
      const rows = csv.out.trimEnd().split("\r\n");
      expect(rows).toHaveLength(1 + a.bindings.length);
      expect(rows[1]).toBe(
        `${a.bindings[0]!.uid},${made.org},demo-org,3,false,${alice},person0,person,false,,,` +
          `${viewer.uid},viewer,${[...viewer.capabilities].sort().join(" ")},,,`,
      );
      const expandedCsv = await run(["what-can", alice, "--in", made.org, "--csv", "--expand"]);
      expect(expandedCsv.out.trimEnd().split("\r\n")).toHaveLength(1 + mine(alice).size);
      expect(expandedCsv.out).toContain(
        `,${alice},person0,person,CAP_REPO_LIST,false,${viewer.uid},viewer,${made.org},`,
      );
    });

    it("text and CSV say the same as JSON", async () => {
      const r = await json(["review", made.org]);
      const text = await run(["review", made.org]);
      expect(text.code).toBe(0);
      expect(text.out).toContain("Legend:");
      expect(text.out).toMatch(/^ {2}workload identity wl0: privileged; last seen /m);
      for (const uid of [made.org, eng, ci]) expect(text.out).not.toContain(uid);
      // Each binding once, under the group it is bound on, the groups below said on the group; each role once.
      expect(text.out).toMatch(
        /^ {4}folder g0 and the 1 folder under it:\n {6}workload identity wl0: role role0$/m,
      );
      // g1 inherits from g0 and holds no binding of its own: counted, not shown.
      expect(text.out).toContain("\n  (1 group with nothing bound on or below it not shown)\n");
      expect(text.out).toMatch(
        /^ {2}role role0: CAP_IAM_GROUPS_LIST CAP_IAM_ROLE_BINDINGS_CREATE\* CAP_REPO_LIST$/m,
      );
      expect(text.out.match(/CAP_IAM_ROLE_BINDINGS_CREATE\*/g)).toHaveLength(
        r.roles.filter((x) => x.capabilities.includes("CAP_IAM_ROLE_BINDINGS_CREATE")).length,
      );
      const csv = await run(["review", made.org, "--csv"]);
      const rows = csv.out.trimEnd().split("\r\n");
      expect(rows[0]).toBe(
        "binding,group,group_name,groups_below,bound_above,identity,identity_name,identity_kind,identity_privileged," +
          "identity_unused,identity_unmanaged,role,role_name,capabilities,privileged_capabilities,managed,managed_by",
      );
      expect(rows.length - 1).toBe(r.bindings.length);
      expect(rows).toContain(
        `${made.bindings[1]!.uid},${eng},g0,1,false,${ci},wl0,workload,true,false,,${made.roles[0]!.uid},role0,` +
          `CAP_IAM_GROUPS_LIST CAP_IAM_ROLE_BINDINGS_CREATE CAP_REPO_LIST,CAP_IAM_ROLE_BINDINGS_CREATE,,`,
      );
      // --expand: one row per grant and binding, as JSON --expand says them.
      const full = await json(["review", made.org, "--expand"]);
      const grantRows = (await run(["review", made.org, "--csv", "--expand"])).out.trimEnd().split("\r\n");
      expect(grantRows[0]).toBe(
        "group,group_name,identity,identity_name,identity_kind,capability,privileged,role,role_name,bound_on,inherited,binding,unused,unmanaged,bound_on_name",
      );
      expect(grantRows.length - 1).toBe(full.grants!.reduce((n, g) => n + g.through.length, 0));
      expect(grantRows).toContain(
        `${sandbox},g1,${ci},wl0,workload,CAP_REPO_LIST,false,${made.roles[0]!.uid},role0,${eng},true,${made.bindings[1]!.uid},false,,g0`,
      );
    });

    it("--html writes one self-contained page", async () => {
      const file = path.join(tmp, "review.html");
      const r = await run(["review", made.org, "--html", file]);
      expect(r.code).toBe(0);
      const html = fs.readFileSync(file, "utf8");
      expect(html).not.toMatch(/<link|\ssrc=|@import|url\(/);
      expect(html).toContain("Content-Security-Policy");
    });

    it("--fail-on-privileged-workload fails on a privileged workload, and on an unmanaged privileged identity", async () => {
      const failing = await run(["review", made.org, "--fail-on-privileged-workload"]);
      expect(failing.code).toBe(2);
      expect(failing.err.join("\n")).toContain(
        `privileged: workload identity wl0 holds a privileged capability`,
      );
      // ops: bot views it, the owner (a person) holds everything from above; no state given: nothing fails.
      expect((await run(["review", ops, "--fail-on-privileged-workload"])).code).toBe(0);
      // With a state that manages only bot's binding, the owner is unmanaged and privileged: fails.
      const state = path.join(tmp, "ops.json");
      fs.writeFileSync(
        state,
        JSON.stringify({
          deployment: {
            resources: [
              {
                urn: "urn:pulumi:s::p::platform:iam:RoleBinding::bot",
                type: "platform:iam:RoleBinding",
                id: made.bindings[2]!.uid,
              },
            ],
          },
        }),
      );
      const withState = await run(["review", ops, "--state", state, "--fail-on-privileged-workload"]);
      expect(withState.code).toBe(2);
      expect(withState.err.join("\n")).toContain(
        `privileged: user demo-user is unmanaged and holds a privileged capability`,
      );
      const r = await json(["review", ops, "--state", state]);
      const marks = new Map(r.identities.map((i) => [i.uid, i.unmanaged]));
      expect(marks.get(bot)).toBe(false);
      expect(marks.get(alice)).toBe(true);
    });

    it("marks identities unused after the threshold", async () => {
      emulator.clock.advance(100 * 24 * 3600 * 1000);
      const asOf = ["--as-of", emulator.clock.now().toISOString()];
      const r = await json(["review", made.org, ...asOf]);
      expect(r.identities.find((i) => i.uid === ci)!.unused).toBe(true);
      expect(r.at).toBe(asOf[1]);
      const lenient = await json(["review", made.org, "--unused-after", "200d", ...asOf]);
      expect(lenient.identities.find((i) => i.uid === ci)!.unused).toBe(false);
      expect((await run(["review", made.org, "--unused-after", "soon"])).err.join("")).toMatch(
        /--unused-after is a number of days/,
      );
    });

    it("shows only what the caller may list, and says what it left out", async () => {
      const eve = emulator.createUser("eve");
      await emulator.client.roleBindings.create(eng, { identityUid: eve.uid, roleUid: viewer.uid });
      const asEve = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: eve.token };
      const r = await json(["review", eng], asEve);
      // Nothing from ops or about bot leaks; eve's view of eng is what eve may list.
      expect(JSON.stringify(r)).not.toContain(ops);
      expect(JSON.stringify(r)).not.toContain(bot);
      expect(r.partial.join("\n")).toMatch(new RegExp(`role bindings on ${made.org} are not shown`));
      const held = [...grantsOf(r).keys()];
      // The owner's binding on the organization is above what eve may list: not shown.
      expect(held.some((k) => k.split(" ")[1] === emulator.userUid)).toBe(false);
      expect(r.bindings.some((b) => b.identity === emulator.userUid)).toBe(false);
      // ci's binding on eng is visible, but its custom role lives on the organization, which eve may not list:
      // its capabilities are unknown, and the review says so rather than guessing.
      expect(held.some((k) => k.split(" ")[1] === ci)).toBe(false);
      expect(r.identities.some((i) => i.uid === ci)).toBe(false);
      expect(r.roles.some((x) => x.uid === made.roles[0]!.uid)).toBe(false);
      expect(r.partial.join("\n")).toContain(
        `not visible to the caller, so their capabilities are not shown: ${made.roles[0]!.uid}`,
      );
      // alice's viewer binding on the organization is not visible either; eve's own is.
      expect(held).toContain(`${eng} ${eve.uid} CAP_REPO_LIST`);
      const text = await run(["review", eng], asEve);
      expect(text.out).toContain("PARTIAL");
      expect(text.out).toMatch(new RegExp(`^ {4}workload identity wl0: role ${made.roles[0]!.uid}$`, "m"));
      expect(text.out).toMatch(
        new RegExp(`^ {2}role ${made.roles[0]!.uid}: not visible to the caller$`, "m"),
      );
      expect(text.err.join("\n")).toContain("partial: role bindings on");
      const above = await run(["review", made.org], asEve);
      expect(above.code).toBe(1);
      expect(above.err.join("\n")).toMatch(/no group .* is visible to these credentials/);
    });

    it("refuses bad input with one line naming the rule", async () => {
      expect((await run(["review"])).err.join("")).toMatch(/review needs one group uid/);
      expect((await run(["review", "acme"])).err.join("")).toMatch(/is not a group uid/);
      expect((await run(["who-can", "groups.list", "--on", made.org])).err.join("")).toMatch(
        /is not a capability/,
      );
      expect((await run(["who-can", "CAP_REPO_LIST"])).err.join("")).toMatch(/needs --on/);
      expect((await run(["review", made.org, "--json", "--csv"])).err.join("")).toMatch(/choose one of/);
      expect((await run(["review", made.org, "--bogus"])).err.join("")).toMatch(/unknown option --bogus/);
      // --expand only where it means something, refused before any API call.
      emulator.clearRequestLog();
      for (const [argv, message] of [
        [["review", made.org, "--expand"], /--expand takes --json or --csv/],
        [["review", made.org, "--markdown", "--expand"], /--expand takes --json or --csv/],
        [["what-can", ci, "--expand"], /--expand takes --json or --csv/],
        [
          ["review", made.org, "--since", "x.json", "--csv", "--expand"],
          /--expand with --since: the CSV is then/,
        ],
        [["who-can", "CAP_REPO_LIST", "--on", made.org, "--json", "--expand"], /unknown option --expand/],
      ] as const) {
        const refused = await run([...argv]);
        expect([argv.join(" "), refused.code, refused.err]).toEqual([
          argv.join(" "),
          1,
          [expect.stringMatching(message)],
        ]);
      }
      expect(emulator.requestLog()).toEqual([]);
      expect((await run(["frobnicate"])).code).toBe(1);
      const help = await run(["--help"]);
      expect([help.code, help.out]).toEqual([0, expect.stringContaining("who-can [options] <CAPABILITY>")]);
      const whoCanHelp = await run(["who-can", "--help"]);
      expect([whoCanHelp.code, whoCanHelp.out]).toEqual([
        0,
        expect.stringContaining("Usage: platform-access who-can [options] <CAPABILITY>"),
      ]);
    });
  });

  describe("what-can for a person, across the organizations the caller sees", () => {
    // Two organizations made by the bootstrap user (who owns both); alice holds viewer on the first's folder and
    // editor on the second; bob, another person, sees only the first.
    let first: string, second: string, folder: string;
    let alice: { uid: string; token: string }, bob: { uid: string; token: string };
    const editor = BUILTIN_ROLES.find((r) => r.name === "editor")!;

    beforeAll(async () => {
      emulator.reset();
      const client = emulator.client;
      first = emulator.orgUid;
      second = (await client.groups.create(undefined, { name: "second-org" })).uid;
      folder = (await client.groups.create(first, { name: "team" })).uid;
      alice = emulator.createUser("alice");
      bob = emulator.createUser("bob");
      await client.roleBindings.create(folder, { identityUid: alice.uid, roleUid: viewer.uid });
      await client.roleBindings.create(second, { identityUid: alice.uid, roleUid: editor.uid });
      await client.roleBindings.create(first, { identityUid: bob.uid, roleUid: viewer.uid });
    });

    type PerOrganization = { organizations: (WhatCanJson & { grants: Grant[] })[] };

    it("answers for each organization, by name, each read once, as --in each would", async () => {
      emulator.clearRequestLog();
      const r = await json<PerOrganization>(["what-can", alice.uid, "--expand"]);
      expect(r.organizations.map((o) => [o.group, o.groupName])).toEqual([
        [first, "demo-org"],
        [second, "second-org"],
      ]);
      const reads = emulator
        .requestLog()
        .filter((e) => e.method === "GET" && /\/groups\/[0-9a-f]{40}$/.test(e.path));
      expect(reads.map((e) => e.path).sort()).toEqual(
        [first, second].map((o) => `/iam/v2beta1/groups/${o}`).sort(),
      );
      for (const o of r.organizations) {
        const single = await json<WhatCanJson & { grants: Grant[] }>([
          "what-can",
          alice.uid,
          "--in",
          o.group,
          "--expand",
        ]);
        expect(o.bindings).toEqual(single.bindings);
        expect(sorted(keysOf(o.grants))).toEqual(sorted(keysOf(single.grants)));
      }
      const [inFirst, inSecond] = r.organizations as [
        PerOrganization["organizations"][number],
        PerOrganization["organizations"][number],
      ];
      expect(new Set(inFirst.grants.map((g) => g.group))).toEqual(new Set([folder]));
      expect(new Set(inFirst.grants.map((g) => g.capability))).toEqual(new Set(viewer.capabilities));
      expect(new Set(inSecond.grants.map((g) => g.capability))).toEqual(new Set(editor.capabilities));
    });

    it("text and CSV name the organization of each answer", async () => {
      const text = await run(["what-can", alice.uid]);
      expect(text.code).toBe(0);
      expect(text.out).toContain(`what user alice holds under organization demo-org:`);
      expect(text.out).toContain(`what user alice holds under organization second-org [privileged]:`);
      expect(text.out).toMatch(/^ {2}on folder team, through built-in role viewer$/m);
      expect(text.out).toMatch(/^ {2}on organization second-org, through built-in role editor$/m);
      const r = await json<PerOrganization>(["what-can", alice.uid, "--expand"]);
      // One row per binding (per grant and binding when expanded), each starting with its organization.
      for (const [flags, count] of [
        [[], (o: PerOrganization["organizations"][number]) => o.bindings.length],
        [["--expand"], (o: PerOrganization["organizations"][number]) => o.grants.length],
      ] as const) {
        const csv = await run(["what-can", alice.uid, "--csv", ...flags]);
        const [header, ...rows] = csv.out.trimEnd().split("\r\n");
        expect(header!.split(",").slice(0, 3)).toEqual([
          "organization",
          "organization_name",
          flags.length === 0 ? "binding" : "group",
        ]);
        const perOrganization = new Map<string, number>();
        for (const row of rows) {
          const [uid, name, at] = row.split(",");
          expect([uid, name]).toEqual(uid === first ? [first, "demo-org"] : [second, "second-org"]);
          expect(at!.startsWith(`${uid}`)).toBe(true);
          perOrganization.set(uid!, (perOrganization.get(uid!) ?? 0) + 1);
        }
        for (const o of r.organizations)
          expect([o.group, perOrganization.get(o.group)]).toEqual([o.group, count(o)]);
      }
    });

    it("a caller that sees one organization gets that one's answer", async () => {
      const asBob = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: bob.token };
      const r = await json<PerOrganization>(["what-can", alice.uid], asBob);
      expect(r.organizations.map((o) => [o.group, o.groupName])).toEqual([[first, "demo-org"]]);
      expect(JSON.stringify(r)).not.toContain(second);
    });

    it("a caller that sees no organization is told to say which group", async () => {
      const carol = emulator.createUser("carol");
      const asCarol = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: carol.token };
      const refused = await run(["what-can", alice.uid], asCarol);
      expect(refused.code).toBe(1);
      expect(refused.err.join("\n")).toMatch(/may list no organization: say which group with --in/);
    });
  });

  it("review, who-can and what-can agree over random organizations", async () => {
    const planArb = orgPlans({ groups: 5, roles: 3, bindings: 8 });
    await fc.assert(
      fc.asyncProperty(planArb, fc.nat(1000), async (plan, pick) => {
        emulator.reset();
        const made = await makeOrg(emulator, plan);
        const expected = expectedGrants(made);
        const only = (keep: (group: string, identity: string, capability: string) => boolean) =>
          new Map([...expected].filter(([k]) => keep(...(k.split(" ") as [string, string, string]))));
        // The review's bindings, said once each, and the expanded grants: both exactly what the plan implies.
        const r = await json(["review", made.org]);
        expect(sorted(grantsOf(r))).toEqual(sorted(expected));
        const full = await json(["review", made.org, "--expand"]);
        expect(sorted(keysOf(full.grants!))).toEqual(sorted(expected));
        // The CSV's rows, one per binding, expand to the same.
        const rows = (await run(["review", made.org, "--csv"])).out.trimEnd().split("\r\n").slice(1);
        const fromCsv = rows.map((row) => row.split(","));
        expect(
          sorted(
            expanded(
              {
                bindings: fromCsv.map(([uid, group, , , , identity, , , , , , role]) => ({
                  uid,
                  group,
                  identity,
                  role,
                })) as ReviewedBinding[],
                roles: fromCsv.map((cells) => ({
                  uid: cells[11],
                  capabilities: cells[13]!.split(" "),
                })) as ReviewedRole[],
              },
              made.groups,
            ),
          ),
        ).toEqual(sorted(expected));
        for (const identity of made.identities) {
          const w = await json<WhatCanJson>(["what-can", identity.uid, "--in", made.org]);
          expect(sorted(expanded(w, made.groups))).toEqual(sorted(only((_, i) => i === identity.uid)));
        }
        const group = made.groups[pick % made.groups.length]!;
        for (const capability of [CAP_POOL[pick % CAP_POOL.length]!, "CAP_IAM_GROUPS_DELETE"]) {
          const w = await json<{ grants: Grant[] }>(["who-can", capability, "--on", group]);
          expect(sorted(keysOf(w.grants))).toEqual(
            sorted(only((g, _, c) => g === group && c === capability)),
          );
        }
      }),
      { numRuns: 30, seed: 33 },
    );
  });

  it("a workload never seen is unused whatever the threshold (no lastSeenTime)", () => {
    const org = "a".repeat(40);
    const data: AccessData = {
      top: { uid: org, name: "acme" } as AccessData["top"],
      groups: [{ uid: org, name: "acme" } as AccessData["top"]],
      identities: [{ uid: `${org}/0123456789abcdef`, name: "ci" } as AccessData["identities"][number]],
      roles: [{ uid: viewer.uid, name: "viewer", capabilities: viewer.capabilities }],
      bindings: [
        {
          uid: `${org}/1111111111111111`,
          group: { uid: org },
          identity: { uid: `${org}/0123456789abcdef` },
          role: { uid: viewer.uid },
        },
      ],
      caller: undefined,
      partial: [],
      calls: 0,
    };
    const r = review(data, { unusedAfterDays: 100000 });
    expect(r.identities).toEqual([
      expect.objectContaining({ name: "ci", kind: "workload", unused: true, privileged: false }),
    ]);
    expect(r.identities[0]).not.toHaveProperty("lastSeenTime");
    // As the service returns it: lastSeenTime from create on, the creation time until the first exchange.
    const created = "2020-01-01T00:00:00Z";
    for (const [lastSeenTime, unused] of [
      [created, true],
      ["2020-01-01T00:00:00.000Z", true],
      [new Date().toISOString(), false],
    ] as const) {
      const seen = { ...data.identities[0]!, createTime: created, lastSeenTime };
      const again = review({ ...data, identities: [seen] }, { unusedAfterDays: 30 });
      expect([lastSeenTime, again.identities[0]!.unused]).toEqual([lastSeenTime, unused]);
      expect(again.identities[0]!.lastSeenTime).toBe(unused ? undefined : lastSeenTime);
    }
  });

  describe("least-privilege", () => {
    const org = "b".repeat(40);
    const folder = `${org}/00000000000000a1`;
    const role = `${org}/00000000000000b1`;
    const ident = `${org}/00000000000000c1`;
    const binding = `${folder}/00000000000000d1`;
    const state = {
      deployment: {
        resources: [
          { urn: "urn:p::s::pulumi:pulumi:Stack::s", type: "pulumi:pulumi:Stack" },
          { urn: "u:folder", type: "platform:iam:Group", id: folder, inputs: { parentUid: org } },
          { urn: "u:ci", type: "platform:iam:Identity", id: ident, inputs: { parentUid: org } },
          {
            urn: "u:role",
            type: "pulumi-nodejs:dynamic/iam:Role",
            id: role,
            inputs: { parentUid: org, capabilities: ["CAP_REPO_LIST"] },
          },
          {
            urn: "u:binding",
            type: "platform:iam:RoleBinding",
            id: binding,
            inputs: { groupUid: folder, identityUid: ident, roleUid: viewer.uid },
          },
          { urn: "u:ext", type: "platform:iam:Group", id: `${org}/00000000000000e1`, external: true },
        ],
      },
    };

    it("needs each operation's capability where it applies, lifted to a group the stack does not create", () => {
      const { objects } = stackObjects(JSON.stringify(state), "s.json");
      expect(objects.map((o) => o.kind)).toEqual(["group", "identity", "role", "roleBinding"]);
      const lp = leastPrivilege(objects, {
        roleCapabilities: (uid) => (uid === viewer.uid ? viewer.capabilities : undefined),
      });
      // The folder is the stack's: its read, delete and the binding on it are needed on the organization.
      expect(lp.grants.map((g) => g.group)).toEqual([org]);
      expect(lp.grants[0]!.capabilities).toEqual(
        [
          ...new Set([
            "CAP_IAM_GROUPS_CREATE",
            "CAP_IAM_GROUPS_LIST",
            "CAP_IAM_GROUPS_DELETE",
            "CAP_IAM_IDENTITY_CREATE",
            "CAP_IAM_IDENTITY_LIST",
            "CAP_IAM_IDENTITY_DELETE",
            "CAP_IAM_ROLES_CREATE",
            "CAP_IAM_ROLES_LIST",
            "CAP_IAM_ROLES_DELETE",
            "CAP_REPO_LIST", // the role's capability: no escalation
            "CAP_IAM_ROLE_BINDINGS_CREATE",
            "CAP_IAM_ROLE_BINDINGS_LIST",
            "CAP_IAM_ROLE_BINDINGS_DELETE",
            ...viewer.capabilities, // binding viewer: no escalation
          ]),
        ].sort(),
      );
      expect(lp.needs).toContainEqual({
        capability: "CAP_IAM_ROLE_BINDINGS_CREATE",
        group: folder,
        reason: `create under ${folder}`,
      });
      expect(lp.roles).toEqual([
        { name: "stack-deployer", parentUid: org, capabilities: lp.grants[0]!.capabilities, bindOn: [org] },
      ]);
      const withUpdate = leastPrivilege(objects, { roleCapabilities: () => [], withUpdate: true });
      expect(withUpdate.grants[0]!.capabilities).toContain("CAP_IAM_GROUPS_UPDATE");
    });

    it("grants a capability once at the topmost group that needs it, and one role per distinct set", () => {
      const a = `${org}/00000000000000a1`;
      const b = `${org}/00000000000000a2`;
      const objects = [
        { kind: "identity" as const, uid: `${a}/00000000000000c1`, urn: "x", parent: a },
        {
          kind: "identity" as const,
          uid: `${a}/00000000000000a9/00000000000000c2`,
          urn: "y",
          parent: `${a}/00000000000000a9`,
        },
        { kind: "group" as const, uid: `${b}/00000000000000f1`, urn: "z", parent: b },
      ];
      const lp = leastPrivilege(objects, { roleCapabilities: () => [] });
      expect(lp.grants).toEqual([
        {
          group: a,
          capabilities: ["CAP_IAM_IDENTITY_CREATE", "CAP_IAM_IDENTITY_DELETE", "CAP_IAM_IDENTITY_LIST"],
        },
        { group: b, capabilities: ["CAP_IAM_GROUPS_CREATE", "CAP_IAM_GROUPS_DELETE", "CAP_IAM_GROUPS_LIST"] },
      ]);
      expect(lp.roles.map((r) => [r.name, r.parentUid, r.bindOn])).toEqual([
        ["stack-deployer-1", a, [a]],
        ["stack-deployer-2", b, [b]],
      ]);
    });

    it("prints YAML and TypeScript, reading built-in roles from the API", async () => {
      const file = path.join(tmp, "stack.json");
      fs.writeFileSync(file, JSON.stringify(state));
      const r = await run([
        "least-privilege",
        "--state",
        file,
        "--identity",
        ident,
        "--need",
        `CAP_ADVISORIES_LIST@${org}`,
      ]);
      expect(r.code).toBe(0);
      expect(r.out).toContain("type: platform:iam:Role");
      expect(r.out).toContain(`      groupUid: "${org}"`);
      expect(r.out).toContain(`      identityUid: "${ident}"`);
      expect(r.out).toContain("        - CAP_ADVISORIES_LIST");
      expect(r.out).toContain("        - CAP_MANIFEST_LIST"); // viewer's, read from the API
      expect(r.out).toContain('new platform.iam.Role("stack-deployer", {');
      expect(r.out).toContain("roleUid: role1.uid,");
      const asJson = await run(["least-privilege", "--state", file, "--format", "json"]);
      const lp = JSON.parse(asJson.out) as { grants: { group: string; capabilities: string[] }[] };
      expect(lp.grants).toEqual([{ group: org, capabilities: expect.arrayContaining(viewer.capabilities) }]);
      const yamlOnly = await run(["least-privilege", "--state", file, "--format", "yaml"]);
      expect(yamlOnly.out).toContain("identityUid: ${deployerIdentityUid}");
      expect(yamlOnly.out).not.toContain("new platform.iam.Role");
      const bad = await run(["least-privilege", "--state", file, "--need", "repo-list"]);
      expect(bad.err.join("")).toMatch(/--need is CAPABILITY@GROUP/);
    });
  });
});

describe("platform-access output of hostile names", () => {
  const org = "c".repeat(40);
  const data = (name: string): AccessData => ({
    top: { uid: org, name } as AccessData["top"],
    groups: [{ uid: org, name } as AccessData["top"]],
    identities: [{ uid: `${org}/0123456789abcdef`, name } as AccessData["identities"][number]],
    roles: [{ uid: `${org}/00000000000000b1`, name, capabilities: ["CAP_REPO_LIST"] }],
    bindings: [
      {
        uid: `${org}/1111111111111111`,
        group: { uid: org, name },
        identity: { uid: `${org}/0123456789abcdef`, name },
        role: { uid: `${org}/00000000000000b1`, name },
      },
    ],
    caller: undefined,
    partial: [name],
    calls: 0,
  });

  it("CSV quotes what needs quoting and defuses formulas", () => {
    const r = review(data('=HYPERLINK("x"),\nnext'), { now: new Date(0), expand: true });
    for (const csv of [grantsCsv(r.grants!, r), bindingsCsv(r.bindings, r)]) {
      expect(csv.split("\r\n")[1]).toContain(`"'=HYPERLINK(""x""),\nnext"`);
      expect(csv.split("\r\n")).toHaveLength(3); // header, one row, the final line break
    }
  });
});

describe("readAccess when a list of roles leaves the built-in ones out", () => {
  it("reads each built-in role a binding names by uid, once", async () => {
    const org = "d".repeat(40);
    const wl = `${org}/0123456789abcdef`;
    const got: string[] = [];
    const list = <T>(items: T[]) => ({
      pages: async function* () {
        yield { items, totalCount: String(items.length) };
      },
    });
    const bindings = ["1111111111111111", "2222222222222222"].map((b) => ({
      uid: `${org}/${b}`,
      group: { uid: org, name: "acme" },
      identity: { uid: wl, name: "ci" },
      role: { uid: viewer.uid, name: "viewer" },
    }));
    // A client as the API could answer: the organization's roles list holds no built-in role.
    const client = {
      groups: { get: async () => ({ uid: org, name: "acme" }), list: () => list([]) },
      identities: { list: () => list([{ uid: wl, name: "ci" }]) },
      roles: {
        list: () => list([]),
        get: async (uid: string) => {
          got.push(uid);
          return { uid, name: "viewer", capabilities: viewer.capabilities };
        },
      },
      roleBindings: { list: () => list(bindings) },
    } as unknown as PlatformClient;
    const data = await readAccess(client, org);
    expect(got).toEqual([viewer.uid]);
    expect(data.calls).toBe(1 + 4 + 1);
    expect(data.partial.filter((p) => p.includes("not visible"))).toEqual([]);
    expect(
      review(data, { expand: true })
        .grants!.map((g) => g.capability)
        .sort(),
    ).toEqual(viewer.capabilities);
  });
});

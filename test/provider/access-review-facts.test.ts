/**
 * The facts behind the preview's access lines (provider/core/live-facts), against the in-process emulator, calling
 * the provider's operations in the order the engine does:
 *   - the provider's own writes keep them current for the rest of the process: `up` names the binding of a role,
 *     an identity and a folder the same run created, and a binding a GroupAccess made or removed counts from then
 *     on; they never count toward the provider's own permissions;
 *   - names come from the facts, the state of the resources handled, or one lookup by uid; hostile names are quoted;
 *   - a preview reads only the organizations its changes touch, whatever else the caller belongs to.
 */
import { captureLog } from "../../provider/core/engine-log";
import { configureFromLookup } from "../../provider/core/client";
import { forgetLiveFacts, preflight, type AccessEffect } from "../../provider/core/access-review";
import { readOrganizationFacts, type LiveFacts } from "../../provider/core/live-facts";
import * as group from "../../provider/iam/group.implementation";
import * as identity from "../../provider/iam/identity.implementation";
import * as role from "../../provider/iam/role.implementation";
import * as roleBinding from "../../provider/iam/role-binding.implementation";
import * as groupAccess from "../../provider/iam/group-access.implementation";
import { resetClaims } from "../../provider/iam/access";
import { PlatformClient, type Role } from "../../sdk";
import { BUILTIN_ROLES, type LoggedRequest } from "../../emulator";
import { builtinRole, TEST_ISSUER } from "../organization";
import { useHarness } from "./harness";

// A fresh emulator state before each test, and a provider process configured as its owner.
const h = useHarness(() => resetClaims());
beforeEach(() => runAs(h.emulator.token));

/** Configures the provider process as the engine would, with `token`. */
async function runAs(token: string): Promise<void> {
  await configureFromLookup(
    (key) =>
      ({
        "platform:apiUrl": h.emulator.url,
        "platform:token": token,
        "platform:propagationWindowMs": "0",
      })[key],
  );
  forgetLiveFacts();
  resetClaims();
}

/** The access lines logged while `work` runs. */
async function accessLines(work: () => Promise<unknown>): Promise<string[]> {
  const logged: string[] = [];
  captureLog((_severity, message) => logged.push(message));
  try {
    await work();
  } finally {
    captureLog(undefined);
  }
  return logged.flatMap((m) => m.split("\n")).filter((l) => l.startsWith("access: "));
}

const urn = (type: string, name: string) => `urn:pulumi:dev::quickstart::${type}::${name}`;
const claimMatch = (subject: string) => ({ issuer: TEST_ISSUER, subject });

describe("own writes", () => {
  it("up names the binding of a folder, an identity and a role the same run created", async () => {
    const org = h.emulator.orgUid;
    const folderInputs = { parentUid: org, name: "platform" };
    const robotInputs = { parentUid: org, name: "ci-robot", claimMatch: claimMatch("ci") };
    const roleInputs = { parentUid: org, name: "deployer", capabilities: ["CAP_REPO_LIST", "CAP_TAG_LIST"] };
    // up's own preview of each create reads the facts first (the preflight), then the creates run.
    expect((await group.resource.check({}, folderInputs)).failures ?? []).toEqual([]);
    expect((await identity.resource.check({}, robotInputs)).failures ?? []).toEqual([]);
    expect((await role.resource.check({}, roleInputs)).failures ?? []).toEqual([]);
    const folder = await group.resource.create(folderInputs);
    const robot = await identity.resource.create(robotInputs);
    const deployer = await role.resource.create(roleInputs);
    // The binding's inputs are known only now: its check runs after the creates, in the same process.
    const mark = h.emulator.requestLog().length;
    const lines = await accessLines(() =>
      roleBinding.resource.check(
        {},
        { groupUid: folder.id, identityUid: robot.id, roleUid: deployer.id },
        urn("platform:iam:RoleBinding", "ci-deploys"),
      ),
    );
    expect(lines).toEqual([
      // A new binding gives the whole role, made by the same run: said by its name with what it holds.
      'access: workload identity ci-robot becomes role deployer (2 capabilities: CAP_REPO_LIST, CAP_TAG_LIST) on folder platform (platform:iam:RoleBinding "ci-deploys")',
    ]);
    // Everything it names was known from this run: no read at all.
    expect(h.emulator.requestLog().slice(mark)).toEqual([]);
  });

  it("counts what a GroupAccess made and removed, for the rest of the process", async () => {
    const c = h.emulator.client;
    const org = h.emulator.orgUid;
    const folder = await c.groups.create(org, { name: "governed" });
    const reader = await c.roles.create(org, { name: "reader", capabilities: ["CAP_REPO_LIST"] });
    const before = await c.identities.create(org, { name: "leaver", claimMatch: claimMatch("leaver") });
    const after = await c.identities.create(org, { name: "joiner", claimMatch: claimMatch("joiner") });
    await c.roleBindings.create(folder.uid, { identityUid: before.uid, roleUid: reader.uid });
    // The preview of the GroupAccess reads the facts (its preflight): the leaver's binding is in them.
    const inputs = { groupUid: folder.uid, bindings: [{ identityUid: after.uid, roleUid: reader.uid }] };
    const checked = await groupAccess.resource.check({}, inputs);
    expect(checked.failures ?? []).toEqual([]);
    await groupAccess.resource.create(checked.inputs);
    // A later change of the role in the same process: its lines are the joiner's, not the leaver's.
    const lines = await accessLines(() =>
      role.resource.diff(
        reader.uid,
        { parentUid: org, name: "reader", capabilities: ["CAP_REPO_LIST"], uid: reader.uid },
        { parentUid: org, name: "reader", capabilities: ["CAP_REPO_LIST", "CAP_TAG_LIST"] },
      ),
    );
    expect(lines).toEqual([
      'access: workload identity joiner gains CAP_TAG_LIST on folder governed, through role reader (2 capabilities: CAP_REPO_LIST, CAP_TAG_LIST) (platform:iam:Role "reader")',
    ]);
  });

  it("a binding deleted in the run takes its lines with it", async () => {
    const c = h.emulator.client;
    const org = h.emulator.orgUid;
    const reader = await c.roles.create(org, { name: "reader", capabilities: ["CAP_REPO_LIST"] });
    const robot = await c.identities.create(org, { name: "robot", claimMatch: claimMatch("robot") });
    const binding = await c.roleBindings.create(org, { identityUid: robot.uid, roleUid: reader.uid });
    const change = () =>
      role.resource.diff(
        reader.uid,
        { parentUid: org, name: "reader", capabilities: ["CAP_REPO_LIST"], uid: reader.uid },
        { parentUid: org, name: "reader", capabilities: ["CAP_TAG_LIST"] },
      );
    expect(await accessLines(change)).toEqual([
      expect.stringMatching(
        /^access: workload identity robot gains CAP_TAG_LIST and loses CAP_REPO_LIST on organization demo-org/,
      ),
    ]);
    await roleBinding.resource.delete(binding.uid, {
      groupUid: org,
      identityUid: robot.uid,
      roleUid: reader.uid,
      uid: binding.uid,
    });
    expect(await accessLines(change)).toEqual([]);
  });

  it("never count toward the provider's own permissions (a grant of the same update may not be in effect)", () => {
    const org = "a".repeat(40);
    const caller = "b".repeat(40);
    const editor = { uid: "e".repeat(40), name: "editor", capabilities: ["CAP_IAM_GROUPS_CREATE"] };
    const asRead: LiveFacts = { groups: [], identities: [], roles: [editor], bindings: [] };
    const granted = { uid: `${org}/b`, group: org, identity: caller, role: editor.uid };
    const current: LiveFacts = { ...asRead, bindings: [granted] };
    const effect: AccessEffect = { operations: [{ verb: "CREATE", collection: "groups", parent: org }] };
    // The caller may list nothing as read: the need is unverified, never met by the binding written since.
    expect(preflight(asRead, current, caller, effect).unverified.map((f) => f.capability)).toEqual([
      "CAP_IAM_GROUPS_CREATE",
    ]);
    const lister = { uid: "f".repeat(40), name: "lister", capabilities: ["CAP_IAM_ROLE_BINDINGS_LIST"] };
    const listing = { uid: `${org}/l`, group: org, identity: caller, role: lister.uid };
    const seen: LiveFacts = { ...asRead, roles: [editor, lister], bindings: [listing] };
    const result = preflight(seen, { ...seen, bindings: [listing, granted] }, caller, effect);
    expect(result.refusals).toEqual([
      expect.objectContaining({ capability: "CAP_IAM_GROUPS_CREATE", role: editor.uid }),
    ]);
  });
});

describe("names", () => {
  it("looks up, once, a workload identity that holds no binding yet; a resource's state names it with no call", async () => {
    const c = h.emulator.client;
    const org = h.emulator.orgUid;
    const robot = await c.identities.create(org, { name: "fresh-robot", claimMatch: claimMatch("fresh") });
    const binding = { groupUid: org, identityUid: robot.uid, roleUid: builtinRole("viewer") };
    const lookups = (from: number) =>
      h.emulator
        .requestLog()
        .slice(from)
        .filter((r) => r.path === "/iam/v2beta1/identities");
    let mark = h.emulator.requestLog().length;
    const lines = await accessLines(() => roleBinding.resource.check({}, binding));
    expect(lines).toEqual([
      expect.stringMatching(
        /^access: workload identity fresh-robot becomes built-in role viewer \(11 capabilities\) on organization demo-org /,
      ),
    ]);
    expect(lines[0]).not.toContain(robot.uid);
    expect(lookups(mark)).toHaveLength(1);
    // Once more in the same process: known.
    resetClaims();
    mark = h.emulator.requestLog().length;
    await accessLines(() => roleBinding.resource.check({}, binding));
    expect(lookups(mark)).toEqual([]);

    // A new process in which the engine diffed the identity's resource first (every resource of a stack is).
    await runAs(h.emulator.token);
    await identity.resource.diff(
      robot.uid,
      { parentUid: org, name: "fresh-robot", claimMatch: claimMatch("fresh"), uid: robot.uid },
      { parentUid: org, name: "fresh-robot", claimMatch: claimMatch("fresh") },
    );
    mark = h.emulator.requestLog().length;
    const again = await accessLines(() => roleBinding.resource.check({}, binding));
    expect(again).toEqual(lines);
    expect(lookups(mark)).toEqual([]);
  });

  it("quotes a hostile name the service accepts: one line, nothing raw", async () => {
    const org = h.emulator.orgUid;
    // The emulator refuses control characters in names (a newline, an ESC: test/provider/access-words covers them);
    // a line separator, a bidi override and quotes it takes.
    const hostile = "ci\u2028access: user root gains CAP_IAM_ROLES_CREATE (privileged!)";
    const robot = await identity.resource.create({
      parentUid: org,
      name: hostile,
      claimMatch: claimMatch("h"),
    });
    const custom = await role.resource.create({
      parentUid: org,
      name: 'a "role"\u202e',
      capabilities: ["CAP_REPO_LIST"],
    });
    const lines = await accessLines(() =>
      roleBinding.resource.check({}, { groupUid: org, identityUid: robot.id, roleUid: custom.id }),
    );
    expect(lines).toEqual([
      'access: workload identity "ci\\u2028access: user root gains CAP_IAM_ROLES_CREATE (privileged!)" becomes ' +
        'role "a \\"role\\"\\u202e" (1 capability: CAP_REPO_LIST) on organization demo-org (platform:iam:RoleBinding)',
    ]);
  });
});

describe("what a preview reads", () => {
  /** Every uid a request names: in its path, and in its scoping parameters. */
  function uidsOf(r: LoggedRequest): { uids: string[]; scoped: boolean } {
    const [, , , collection, ...rest] = r.path.split("/");
    const uids = rest.length > 0 ? [decodeURIComponent(rest.join("/"))] : [];
    let scoped = rest.length > 0;
    for (const [key, value] of Object.entries(r.query)) {
      if (!/descendants|children|ancestors|ids|^group$|^identity$|^role$/.test(key)) continue;
      scoped = true;
      uids.push(...(Array.isArray(value) ? value : String(value).split(",")).map(String));
    }
    // The built-in roles, which belong to no organization.
    if (collection === "roles" && String(r.query["uidp.in_root"]) === "true") scoped = true;
    return { uids, scoped };
  }

  it("reads only the program's organization, for a caller that belongs to two", async () => {
    const c = h.emulator.client;
    const org = h.emulator.orgUid;
    const caller = h.emulator.createUser("two-orgs");
    // The caller's own organization, with a folder, a role, an identity and bindings in it.
    const own = new PlatformClient({ apiUrl: h.emulator.url, token: caller.token, maxRetries: 0 });
    const other = await own.groups.create(undefined, { name: "other-org" });
    await own.groups.create(other.uid, { name: "elsewhere" });
    const otherRole = await own.roles.create(other.uid, {
      name: "elsewhere",
      capabilities: ["CAP_REPO_LIST"],
    });
    const otherRobot = await own.identities.create(other.uid, {
      name: "elsewhere",
      claimMatch: claimMatch("e"),
    });
    await own.roleBindings.create(other.uid, { identityUid: otherRobot.uid, roleUid: otherRole.uid });
    await own.close();
    // In the program's organization the caller is an editor.
    await c.roleBindings.create(org, { identityUid: caller.uid, roleUid: builtinRole("editor") });
    const folder = await c.groups.create(org, { name: "platform" });
    const reader: Role = await c.roles.create(org, { name: "reader", capabilities: ["CAP_REPO_LIST"] });
    const robot = await c.identities.create(org, { name: "robot", claimMatch: claimMatch("robot") });

    await runAs(caller.token);
    h.mark();
    // A preview of a program that manages folders, roles and bindings in the organization.
    await group.resource.check({}, { parentUid: folder.uid, name: "team" });
    await role.resource.check({}, { parentUid: org, name: "deployer", capabilities: ["CAP_REPO_LIST"] });
    await roleBinding.resource.check(
      {},
      { groupUid: folder.uid, identityUid: robot.uid, roleUid: reader.uid },
    );
    await role.resource.diff(
      reader.uid,
      { parentUid: org, name: "reader", capabilities: ["CAP_REPO_LIST"], uid: reader.uid },
      { parentUid: org, name: "reader", capabilities: ["CAP_REPO_LIST", "CAP_TAG_LIST"] },
    );
    await groupAccess.resource.check(
      {},
      {
        groupUid: folder.uid,
        bindings: [{ identityUid: robot.uid, roleUid: builtinRole("viewer") }],
      },
    );
    const requests = h.requestsSinceMark();
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((r) => r.method !== "GET")).toEqual([]);
    const outside = requests.filter((r) => {
      const { uids, scoped } = uidsOf(r);
      const isBuiltinRole = (uid: string) =>
        r.path.startsWith("/iam/v2beta1/roles") && BUILTIN_ROLES.some((role) => role.uid === uid);
      return !scoped || uids.some((uid) => !(uid === org || uid.startsWith(`${org}/`) || isBuiltinRole(uid)));
    });
    expect(outside.map((r) => `${r.method} ${r.path} ${JSON.stringify(r.query)}`)).toEqual([]);
  });

  it("reads the built-in roles only when the organization's list of roles leaves them out", async () => {
    const org = "a".repeat(40);
    const builtin = { uid: "b".repeat(40), name: "viewer", capabilities: ["CAP_REPO_LIST"] };
    const custom = { uid: `${org}/0000000000000001`, name: "deployer", capabilities: ["CAP_TAG_LIST"] };
    const asked: Record<string, unknown>[] = [];
    const pages = (items: unknown[]) => ({
      async *[Symbol.asyncIterator]() {
        yield* items;
      },
    });
    const fake = (listsBuiltins: boolean) =>
      ({
        groups: { list: (q: Record<string, unknown>) => (asked.push({ groups: q }), pages([])) },
        roleBindings: { list: (q: Record<string, unknown>) => (asked.push({ roleBindings: q }), pages([])) },
        roles: {
          list: (q: Record<string, unknown>) => {
            asked.push({ roles: q });
            if (q.inRoot === true) return pages([builtin]);
            return pages(listsBuiltins ? [builtin, custom] : [custom]);
          },
        },
      }) as unknown as PlatformClient;
    const scoped = { descendantsOf: org, pageSize: 200 };
    const without = await readOrganizationFacts(fake(false), org);
    expect(without.roles.map((r) => r.name).sort()).toEqual(["deployer", "viewer"]);
    expect(asked).toEqual([
      { groups: scoped },
      { roles: scoped },
      { roleBindings: scoped },
      { roles: { inRoot: true, pageSize: 200 } },
    ]);
    asked.length = 0;
    const listed = await readOrganizationFacts(fake(true), org);
    expect(listed.roles.map((r) => r.name).sort()).toEqual(["deployer", "viewer"]);
    expect(asked).toHaveLength(3);
  });
});

/**
 * The access lines' words (provider/core/access-words): every identity, group and role named by its name and kind
 * as every output names it (sdk/words), a uid only to tell two of a noun apart or where no name is known, and no
 * name, however hostile, able to forge a line (a newline, an ANSI escape, a bidi override, a quote).
 */
import fc from "fast-check";
import * as accessWords from "../../provider/core/access-words";
import type { LiveFacts } from "../../provider/core/live-facts";
import { COLLECTION_ACCESS, type Collection } from "../../sdk/access-model";
import { nameText } from "../../sdk/words";
import { RAW_DANGER } from "../hostile-names";

const ORG = "a".repeat(40);
const FOLDER = `${ORG}/00000000000000f1`;
const OTHER_FOLDER = `${ORG}/00000000000000f2`;
const ROBOT = `${ORG}/00000000000000e1`;
const USER = "b".repeat(40);
const ROLE = `${ORG}/00000000000000r1`;
const VIEWER = "c".repeat(40);

const facts = (over: Partial<LiveFacts> = {}): LiveFacts => ({
  groups: [{ uid: FOLDER, name: "platform" }],
  identities: [{ uid: ROBOT, name: "ci-robot" }],
  roles: [
    { uid: ROLE, name: "deployer", capabilities: ["CAP_REPO_LIST"] },
    { uid: VIEWER, name: "viewer", capabilities: ["CAP_REPO_LIST"] },
  ],
  bindings: [
    { uid: `${ORG}/b1`, group: ORG, groupName: "acme", identity: USER, identityName: "alice", role: VIEWER },
  ],
  ...over,
});

const line = (over: Partial<accessWords.ImpactLine> = {}): accessWords.ImpactLine => ({
  identity: ROBOT,
  group: FOLDER,
  inheritedBy: 0,
  gained: ["CAP_REPO_LIST"],
  lost: [],
  roles: [ROLE],
  ...over,
});

/** Characters that must never reach a reader's terminal raw. */
const FORGING = RAW_DANGER;

describe("names in lines", () => {
  it("names each kind by name and kind, with no uid where the name is known", () => {
    const names = accessWords.namesOf([facts()]);
    const [words] = accessWords.describeImpact([line()], 'platform:iam:RoleBinding "ci"', names);
    expect(words).toBe(
      'access: workload identity ci-robot gains CAP_REPO_LIST on folder platform, through role deployer (platform:iam:RoleBinding "ci")',
    );
    const [user] = accessWords.describeImpact(
      [line({ identity: USER, group: ORG, roles: [VIEWER, ROLE] })],
      "x",
      names,
    );
    expect(user).toBe(
      "access: user alice gains CAP_REPO_LIST on organization acme, through built-in role viewer, role deployer (x)",
    );
    for (const uid of [ORG, FOLDER, ROBOT, USER, ROLE, VIEWER]) {
      expect(words).not.toContain(uid);
      expect(user).not.toContain(uid);
    }
  });

  it("gives the uid where no name is known, and beside the name where two of a kind share it", () => {
    const twins = facts({
      groups: [
        { uid: FOLDER, name: "platform" },
        { uid: OTHER_FOLDER, name: "platform" },
      ],
    });
    const names = accessWords.namesOf([twins]);
    expect(names.group(FOLDER)).toBe(`folder platform (${FOLDER})`);
    expect(names.group(OTHER_FOLDER)).toBe(`folder platform (${OTHER_FOLDER})`);
    const unknown = `${ORG}/00000000000000e9`;
    expect(names.identity(unknown)).toBe(`workload identity ${unknown}`);
    // A custom role that takes a built-in's name is told apart from it by its kind; two custom ones by uid.
    const OTHER_ROLE = `${ORG}/00000000000000r2`;
    const mimic = accessWords.namesOf([
      facts({
        roles: [
          { uid: ROLE, name: "viewer", capabilities: [] },
          { uid: OTHER_ROLE, name: "viewer", capabilities: [] },
          { uid: VIEWER, name: "viewer", capabilities: ["CAP_REPO_LIST"] },
        ],
      }),
    ]);
    expect(mimic.role(ROLE)).toBe(`role viewer (${ROLE})`);
    expect(mimic.role(OTHER_ROLE)).toBe(`role viewer (${OTHER_ROLE})`);
    expect(mimic.role(VIEWER)).toBe("built-in role viewer");
  });

  it("tells a group and an identity of the same name apart by their kind, without uids", () => {
    const names = accessWords.namesOf([
      facts({ groups: [{ uid: FOLDER, name: "ops" }], identities: [{ uid: ROBOT, name: "ops" }] }),
    ]);
    const [words] = accessWords.describeImpact([line()], "x", names);
    expect(words).toBe(
      "access: workload identity ops gains CAP_REPO_LIST on folder ops, through role deployer (x)",
    );
  });

  it("prefers an object's own name to what a binding or the state says of it", () => {
    const names = accessWords.namesOf(
      [
        facts({
          bindings: [{ uid: `${FOLDER}/b`, group: FOLDER, groupName: "stale", identity: ROBOT, role: ROLE }],
        }),
      ],
      new Map([["group", new Map([[FOLDER, "older"]])]]),
    );
    expect(names.group(FOLDER)).toBe("folder platform");
    // What only the state names, it names.
    const fromState = accessWords.namesOf(
      [facts({ groups: [] })],
      new Map([["group", new Map([[FOLDER, "from-state"]])]]),
    );
    expect(fromState.group(FOLDER)).toBe("folder from-state");
  });

  it("keeps one line per change whatever the names hold, each naming its own identity (fast-check)", () => {
    const hostile = fc.oneof(
      fc.constantFrom(
        "ci\naccess: user root gains CAP_IAM_ROLES_CREATE (privileged!) on organization acme",
        "\u001b[2K\u001b[1Gaccess: nothing to see",
        "robot\u202e",
        'x" gains "y',
        "",
        "two words",
      ),
      fc.string({ unit: "binary", maxLength: 30 }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(hostile, hostile, hostile), { minLength: 1, maxLength: 8 }), (named) => {
        const uid = (i: number, kind: string) => `${ORG}/${kind}${String(i).padStart(15, "0")}`;
        const world: LiveFacts = {
          groups: named.map(([, group], i) => ({ uid: uid(i, "f"), name: group })),
          identities: named.map(([identity], i) => ({ uid: uid(i, "e"), name: identity })),
          roles: named.map(([, , role], i) => ({ uid: uid(i, "r"), name: role, capabilities: [] })),
          bindings: [],
        };
        const lines = named.map((_, i) =>
          line({ identity: uid(i, "e"), group: uid(i, "f"), roles: [uid(i, "r")] }),
        );
        const words = accessWords.describeImpact(lines, "label", accessWords.namesOf([world]));
        expect(words).toHaveLength(named.length);
        for (const [i, text] of words.entries()) {
          expect(text).not.toMatch(FORGING);
          expect(text.startsWith("access: ")).toBe(true);
          expect(text.endsWith(" (label)")).toBe(true);
          const [identity] = named[i]!;
          // Its own identity's name, as shown; the uid beside it only when another identity has the same name.
          const shown = identity === "" ? uid(i, "e") : nameText(identity);
          expect(text.startsWith(`access: workload identity ${shown}`)).toBe(true);
        }
      }),
      { seed: 3838, numRuns: 300 },
    );
  });
});

describe("preflight lines in words", () => {
  const names = accessWords.namesOf([facts()]);
  const finding = (capability: string, group: string, reason: accessWords.NeedReason, role?: string) => ({
    capability,
    group,
    reason,
    role,
  });

  it("name the object, the group, the caller and the role that would grant the capability", () => {
    const create = finding(
      "CAP_IAM_GROUPS_CREATE",
      FOLDER,
      { act: "create", collection: "groups", parent: FOLDER },
      VIEWER,
    );
    expect(accessWords.describeRefusal(create, 'platform:iam:Group "team"', ROBOT, names)).toBe(
      'platform:iam:Group "team": create a folder in folder platform needs CAP_IAM_GROUPS_CREATE on folder ' +
        "platform, which workload identity ci-robot (the identity this provider runs as) lacks there; built-in " +
        "role viewer grants it",
    );
    const update = finding("CAP_IAM_ROLES_UPDATE", ORG, { act: "update", collection: "roles", uid: ROLE });
    expect(accessWords.describeRefusal(update, "x", USER, names)).toMatch(
      /^x: update role deployer needs CAP_IAM_ROLES_UPDATE on organization acme, which user alice .*; no listed role grants it$/,
    );
  });

  it("say what a create makes with the noun of each collection and its article", () => {
    const made: Record<Collection, string> = {
      groups: "a folder",
      identities: "a workload identity",
      roles: "a role",
      roleBindings: "a role binding",
      identityProviders: "an identity provider",
      groupInvites: "an invite",
      accountAssociations: "an account association",
      repos: "a repo",
      tags: "a tag",
      advisories: "an advisory",
    };
    expect(Object.keys(made).sort()).toEqual(Object.keys(COLLECTION_ACCESS).sort());
    for (const [collection, words] of Object.entries(made) as [Collection, string][]) {
      const create = finding("CAP_X", FOLDER, { act: "create", collection, parent: FOLDER });
      expect(accessWords.describeUnverified(create, "x", names)).toBe(
        `x: create ${words} in folder platform needs CAP_X on folder platform`,
      );
    }
  });

  it("say what could not be verified, and for whom", () => {
    const read = finding("CAP_IAM_ROLES_LIST", ORG, { act: "use", kind: "role", uid: ROLE });
    expect(accessWords.describeUnverified(read, "x", names)).toBe(
      "x: read role deployer needs CAP_IAM_ROLES_LIST on organization acme",
    );
    expect(accessWords.unverifiedHeading(USER, names)).toBe(
      "preflight could not verify (user alice may not list the role bindings that apply there):",
    );
  });
});

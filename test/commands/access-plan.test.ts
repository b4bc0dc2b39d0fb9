/**
 * The access plan's two adapters over one pure function (commands/access/plan.ts): the policy pack's `access-plan`
 * rule, called as the engine's analyzer calls it, and `platform-access plan` over `pulumi preview --json`
 * (./plan-fixtures writes one plan as both), against the in-process emulator.
 *   - The program of a first preview (an identity, a custom role with two capabilities, a binding of one to the other
 *     on a new folder) is named by both: identity, both capabilities, folder, role; no uid.
 *   - Both adapters say the same thing, line for line, over random first previews with hostile names (fast-check,
 *     fixed seed); names cannot forge a line of text.
 *   - The Markdown parses as GitHub-flavoured Markdown (markdown-it): its headings and tables are headings and
 *     tables, each row has its four cells whatever the names, and each cell reads exactly as the text names it.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import MarkdownIt from "markdown-it";
import type { StackValidationPolicy } from "@pulumi/policy";
import { main } from "../../commands/access/cli";
import { planAccess } from "../../commands/access/plan";
import {
  createdBindingLines,
  createdBindingsText,
  planMarkdown,
  planText,
} from "../../commands/access/plan-format";
import { planOfPreview } from "../../commands/access/preview-json";
import { POLICIES } from "../../policy/rules";
import { useOrganization } from "../organization";
import { capture } from "./fixtures";
import {
  analyzerResources,
  previewJson,
  ref,
  urnOf,
  type FixtureResource,
  type Front,
} from "./plan-fixtures";

jest.setTimeout(120_000);

const org = useOrganization();
let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "access-plan-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const GITHUB = "https://token.actions.githubusercontent.com";

/** The lines the pack's access-plan rule reports for the plan, as the engine's analyzer calls it. */
function analyzerLines(plan: FixtureResource[], front: Front): Array<{ message: string; urn?: string }> {
  const rule = POLICIES.find((p) => p.name === "access-plan") as StackValidationPolicy;
  const lines: Array<{ message: string; urn?: string }> = [];
  const validate = rule.validateStack as (args: unknown, report: (m: string, urn?: string) => void) => void;
  validate({ resources: analyzerResources(plan, front), getConfig: () => ({}) }, (message, urn) =>
    lines.push(urn === undefined ? { message } : { message, urn }),
  );
  return lines;
}

/** `platform-access plan` over the plan's `pulumi preview --json`. */
async function command(plan: FixtureResource[], front: Front, flags: string[] = []) {
  const file = path.join(tmp, `preview-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, previewJson(plan, front));
  const io = capture({ PLATFORM_API_URL: org.emulator.url, PLATFORM_TOKEN: org.emulator.token });
  const code = await main(["plan", ...flags, file], io);
  fs.rmSync(file);
  return { code, out: io.out, err: io.err };
}

function firstPreview(organization: string): FixtureResource[] {
  return [
    { kind: "Group", name: "platform", op: "create", inputs: { parentUid: organization, name: "platform" } },
    {
      kind: "Identity",
      name: "ci-robot",
      op: "create",
      inputs: {
        parentUid: organization,
        name: "ci-robot",
        claimMatch: { issuer: GITHUB, subject: "repo:a/b:x" },
      },
    },
    {
      kind: "Role",
      name: "deployer",
      op: "create",
      inputs: {
        parentUid: organization,
        name: "deployer",
        capabilities: ["CAP_REPO_LIST", "CAP_IAM_ROLE_BINDINGS_CREATE"],
      },
    },
    {
      kind: "RoleBinding",
      name: "ci-robot-deployer",
      op: "create",
      inputs: { groupUid: ref("platform"), identityUid: ref("ci-robot"), roleUid: ref("deployer") },
    },
  ];
}

const SUMMARY = [
  "access plan: this update grants 2 capabilities (1 privileged) to 1 identity and revokes none",
  // The whole role gained, made by the same update: said by its name with every capability it holds.
  '  workload identity ci-robot (new) becomes role deployer (new) (2 capabilities: CAP_IAM_ROLE_BINDINGS_CREATE (privileged), CAP_REPO_LIST) on folder platform (new), through RoleBinding "ci-robot-deployer"',
].join("\n");
const BINDING =
  'will bind workload identity ci-robot (new) to role deployer (new) on folder platform (new) (RoleBinding "ci-robot-deployer")';

describe.each<Front>(["dynamic", "native"])("%s front", (front) => {
  test("a first preview names the identity, both capabilities, the folder and the role, and no uid", async () => {
    const plan = firstPreview(org.uid);
    expect(analyzerLines(plan, front)).toEqual([
      { message: `[access-plan] ${SUMMARY}` },
      { message: `[access-plan] ${BINDING}`, urn: urnOf(plan[3]!, front) },
    ]);
    const run = await command(plan, front);
    expect(run.code).toBe(0);
    expect(run.out).toBe(`${SUMMARY}\n${BINDING}\n`);
    expect(run.out).not.toContain(org.uid);
  });
});

/**
 * An existing folder holding a workload identity bound there to an existing custom role with CAP_REPO_LIST, and
 * the plan's update of that role to `capabilities`.
 */
async function roleOnFolder(
  names: { folder: string; identity: string; role: string },
  capabilities: string[],
) {
  const folder = await org.folder(names.folder);
  const identity = await org.identity(names.identity, folder.uid);
  const role = await org.client.roles.create(org.uid, { name: names.role, capabilities: ["CAP_REPO_LIST"] });
  const binding = await org.client.roleBindings.create(folder.uid, {
    identityUid: identity.uid,
    roleUid: role.uid,
  });
  const update: FixtureResource = {
    kind: "Role",
    name: names.role,
    op: "update",
    uid: role.uid,
    olds: { parentUid: org.uid, name: names.role, capabilities: ["CAP_REPO_LIST"] },
    inputs: { parentUid: org.uid, name: names.role, capabilities },
  };
  return { folder, identity, role, binding, update };
}

test("a role changed in place: the pack says it cannot tell what its holders gain or lose; the command can", async () => {
  const {
    folder,
    identity: bot,
    binding,
    update,
  } = await roleOnFolder({ folder: "ops", identity: "ops-bot", role: "operator" }, [
    "CAP_REPO_LIST",
    "CAP_TAG_LIST",
  ]);
  const plan: FixtureResource[] = [
    update,
    {
      kind: "RoleBinding",
      name: "ops-bot-operator",
      op: "same",
      uid: binding.uid,
      olds: { groupUid: folder.uid, identityUid: bot.uid, roleUid: ref("operator") },
    },
  ];
  // The dynamic front gives the changed role no uid at preview: the binding naming it by uid tells it exists.
  expect(analyzerLines(plan, "dynamic").map((l) => l.message)).toEqual([
    [
      "[access-plan] access plan: this update changes no access",
      "not known at preview:",
      '  Role "operator": what it held before this update is not known here, so what its holders gain or lose through it is not shown',
    ].join("\n"),
  ]);
  const run = await command(plan, "dynamic");
  expect(run.out).toBe(
    [
      "access plan: this update grants 1 capability to 1 identity and revokes none",
      "  workload identity ops-bot gains CAP_TAG_LIST on folder ops, through role operator (edited) (2 capabilities: CAP_REPO_LIST, CAP_TAG_LIST)",
      "",
    ].join("\n"),
  );
});

test("what the pack cannot name it shows by uid and says so; the command reads the name", async () => {
  const plan: FixtureResource[] = [
    {
      kind: "Identity",
      name: "robot",
      op: "create",
      inputs: { parentUid: org.uid, name: "ci-robot", claimMatch: { issuer: GITHUB, subject: "repo:a/b:x" } },
    },
    {
      kind: "RoleBinding",
      name: "robot-viewer",
      op: "create",
      inputs: { groupUid: org.uid, identityUid: ref("robot"), roleUid: org.role("viewer") },
    },
  ];
  const pack = analyzerLines(plan, "native").map((l) => l.message);
  expect(pack[0]).toContain(
    `becomes built-in role viewer (11 capabilities) on organization ${org.uid}, through`,
  );
  expect(pack[0]).toMatch(
    /\n {2}shown by uid: 1 object whose name is not known here; the pack reads nothing; platform-access plan over pulumi preview --json reads their names$/,
  );
  // Offline, the command does not even know the built-in role (the pack knows the emulator's).
  const offline = await command(plan, "native", ["--offline"]);
  expect(offline.out).toContain(
    "shown by uid: 2 objects whose name is not known here; without --offline, platform-access plan reads their names",
  );
  const live = await command(plan, "native");
  // The organization holds the folders of the other tests: the change reaches them too.
  expect(live.out).toMatch(
    new RegExp(
      `becomes built-in role viewer \\(11 capabilities\\) on organization ${await org.name()}( and the \\d+ folders? under it)?, through`,
    ),
  );
  expect(live.out).not.toContain(org.uid);
  expect(live.out).not.toContain("shown by uid");
});

test("an existing role gaining a capability and a binding deleted: the command names the role and the revocation", async () => {
  const client = org.client;
  const {
    identity: bot,
    binding: keep,
    update,
  } = await roleOnFolder({ folder: "apps", identity: "release-bot", role: "publisher" }, [
    "CAP_REPO_LIST",
    "CAP_IAM_GROUPS_CREATE",
  ]);
  const viewer = org.role("viewer");
  const drop = await client.roleBindings.create(org.uid, { identityUid: bot.uid, roleUid: viewer });
  const plan: FixtureResource[] = [
    update,
    {
      kind: "RoleBinding",
      name: "bot-viewer",
      op: "delete",
      uid: drop.uid,
      olds: { groupUid: org.uid, identityUid: bot.uid, roleUid: viewer },
    },
  ];
  const run = await command(plan, "native");
  expect(run.code).toBe(0);
  const lines = run.out.trimEnd().split("\n");
  expect(lines[0]).toMatch(
    /^access plan: this update grants 1 capability to 1 identity and revokes \d+ capabilities from 1 identity$/,
  );
  // On the folder, the role's new capability, and what viewer gave there that the role does not.
  expect(lines[1]).toMatch(
    /^ {2}workload identity release-bot gains CAP_IAM_GROUPS_CREATE and loses CAP_ADVISORIES_LIST, .* on folder apps, through role publisher \(edited\) \(2 capabilities: CAP_IAM_GROUPS_CREATE, CAP_REPO_LIST\), built-in role viewer, RoleBinding "bot-viewer"$/,
  );
  const loss = lines.find((l) => l.includes(" on organization "))!;
  expect(loss).toMatch(
    // The binding deleted: every capability of viewer is lost above the folder, said by the role's name.
    /^ {2}workload identity release-bot is no longer built-in role viewer \(11 capabilities\) on organization \S+( and the \d+ folders? under it)?, through RoleBinding "bot-viewer"$/,
  );
  expect(loss).not.toContain(org.uid);
  expect(keep.uid).toBeDefined();
  await client.roleBindings.delete(keep.uid);
  await client.roleBindings.delete(drop.uid);
});

test("a preview that is not one is refused in one line; one with no steps changes no access", async () => {
  const file = path.join(tmp, "not.json");
  fs.writeFileSync(file, "Previewing update (dev):");
  const io = capture({});
  expect(await main(["plan", "--offline", file], io)).toBe(1);
  expect(io.err).toEqual([
    `platform-access: ${file} is not the output of pulumi preview --json: it is not JSON`,
  ]);
  fs.writeFileSync(file, JSON.stringify({ steps: {} }));
  expect(await main(["plan", "--offline", file], io)).toBe(1);
  expect(io.err.at(-1)).toMatch(/"steps" is not a list/);
  expect(await main(["plan", "a", "b"], io)).toBe(1);
  // A preview with nothing to do has no steps.
  fs.writeFileSync(file, JSON.stringify({ config: {}, changeSummary: { same: 3 } }));
  const quiet = capture({});
  expect(await main(["plan", "--offline", file], quiet)).toBe(0);
  expect(quiet.out).toBe("access plan: this update changes no access\n");
});

// ---------------------------------------------------------------------------------------------------------------
// Both adapters, random first previews with hostile names.

const HOSTILE = [
  "ci-robot",
  "a|b",
  "x\ny",
  "`tick`",
  "<b>bold</b>",
  "o'brien",
  "@team",
  "__proto__",
  "toString",
  "[link](http://x)",
  "line\u2028sep",
  "rtl\u202egnp",
  "**star**",
  "a\\|b",
  "# heading",
];
const CAPS = [
  "CAP_REPO_LIST",
  "CAP_TAG_LIST",
  "CAP_IAM_ROLE_BINDINGS_CREATE",
  "CAP_IAM_IDENTITY_CREATE",
  "CAP_IAM_GROUPS_LIST",
];

/** A random first preview: new folders (nested), identities, roles and bindings between them, hostile names. */
const firstPreviews = (organization: string) =>
  fc
    .record({
      groups: fc.array(fc.integer({ min: -1, max: 3 }), { minLength: 1, maxLength: 4 }),
      identities: fc.array(fc.tuple(fc.constantFrom(...HOSTILE), fc.integer({ min: -1, max: 3 })), {
        minLength: 1,
        maxLength: 3,
      }),
      roles: fc.array(fc.tuple(fc.constantFrom(...HOSTILE), fc.subarray(CAPS, { minLength: 1 })), {
        minLength: 1,
        maxLength: 3,
      }),
      bindings: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { minLength: 1, maxLength: 5 }),
    })
    .map(({ groups, identities, roles, bindings }): FixtureResource[] => {
      const groupName = (i: number) => `g${i}`;
      const parent = (i: number, below: number) => (i < 0 || i >= below ? organization : ref(groupName(i)));
      const plan: FixtureResource[] = [];
      groups.forEach((p, i) =>
        plan.push({
          kind: "Group",
          name: groupName(i),
          op: "create",
          inputs: { parentUid: parent(p, i), name: `team ${i}` },
        }),
      );
      identities.forEach(([name, g], i) =>
        plan.push({
          kind: "Identity",
          name: `i${i}`,
          op: "create",
          inputs: {
            parentUid: parent(g, groups.length),
            name,
            claimMatch: { issuer: GITHUB, subject: `s${i}` },
          },
        }),
      );
      roles.forEach(([name, capabilities], i) =>
        plan.push({
          kind: "Role",
          name: `r${i}`,
          op: "create",
          inputs: { parentUid: organization, name, capabilities },
        }),
      );
      bindings.forEach(([g, id, r], i) =>
        plan.push({
          kind: "RoleBinding",
          name: `b${i}|${HOSTILE[i % HOSTILE.length]}`,
          op: "create",
          inputs: {
            groupUid: ref(groupName(g % groups.length)),
            identityUid: ref(`i${id % identities.length}`),
            roleUid: ref(`r${r % roles.length}`),
          },
        }),
      );
      return plan;
    });

test("both adapters say the same thing over random first previews, and no name forges a line", async () => {
  const md = new MarkdownIt();
  await fc.assert(
    fc.asyncProperty(
      firstPreviews(org.uid),
      fc.constantFrom<Front>("dynamic", "native"),
      async (plan, front) => {
        const analyzer = analyzerLines(plan, front).map((l) => l.message.replace(/^\[access-plan\] /, ""));
        const offline = await command(plan, front, ["--offline"]);
        const live = await command(plan, front);
        const access = planAccess(planOfPreview(previewJson(plan, front), "plan"));
        // The same summary; then the pack says each binding made on its resource, the command like ones together.
        const [summary, ...perResource] = analyzer;
        expect(offline.out).toBe(`${[summary, ...createdBindingsText(access)].join("\n")}\n`);
        expect(live.out).toBe(offline.out);
        expect(perResource).toEqual(createdBindingLines(access).map((b) => b.line));
        // One line for the headline, one per change or like changes, one per binding made: names never add one.
        expect(summary!.split("\n")).toHaveLength(planText(access).length);
        expect(planText(access).length).toBeLessThanOrEqual(1 + access.changes.length);
        expect(perResource).toHaveLength(access.created.length);
        expect(access.notes).toEqual([]);
        expectWellFormedMarkdown(md, planMarkdown(access), access);
      },
    ),
    { seed: 20261127, numRuns: 40 },
  );
});

/** Headings and tables parse as such; every row has its four cells; each name cell reads as the text names it. */
function expectWellFormedMarkdown(
  md: InstanceType<typeof MarkdownIt>,
  markdown: string,
  access: ReturnType<typeof planAccess>,
) {
  const tokens = md.parse(markdown, {});
  expect(tokens.filter((t) => t.type === "html_block" || t.type === "html_inline")).toEqual([]);
  const inline = tokens.filter((t) => t.type === "inline").flatMap((t) => t.children ?? []);
  expect(
    inline.filter((t) => ["html_inline", "link_open", "strong_open", "em_open"].includes(t.type)),
  ).toEqual([]);
  const headings = tokens
    .map((t, i) => (t.type === "heading_open" ? `${t.tag} ${tokens[i + 1]!.content}` : undefined))
    .filter((h) => h !== undefined);
  expect(headings[0]).toBe("h3 Access changes");
  expect(headings.slice(1).every((h) => h.startsWith("h4 "))).toBe(true);
  const tables = tokens.filter((t) => t.type === "table_open").length;
  expect(tables).toBe(headings.filter((h) => h !== "h4 Not known at preview").length - 1);
  // Each row: 4 cells; the text of each cell in the first column is a name as the text summary writes it.
  const rows: string[][] = [];
  let row: string[] | undefined;
  for (const [i, t] of tokens.entries()) {
    if (t.type === "tr_open") row = [];
    if ((t.type === "td_open" || t.type === "th_open") && row)
      row.push(plainText(tokens[i + 1]!.children ?? []));
    if (t.type === "tr_close" && row) rows.push(row);
  }
  expect(rows.every((r) => r.length === 4)).toBe(true);
  const textLines = [...planText(access), ...createdBindingsText(access)].join("\n");
  for (const r of rows.filter((r) => r[0] !== "Identity" && r[0] !== "Resource")) {
    // A binding's resource, or like bindings' count of resources, as the text says it.
    if (/^(RoleBinding|\d+ \w+ resources?$)/.test(r[0]!)) expect(textLines).toContain(`(${r[0]!}`);
    // Like changes: who they are, as the text says them.
    else if (r[0]!.startsWith("each of ")) expect(textLines).toContain(r[0]!.slice(0, r[0]!.indexOf(":")));
    else expect(textLines).toContain(`${r[0]!} `);
  }
}

/** What a cell shows: its text and code spans, as a reader sees them. */
const plainText = (children: Array<{ type: string; content: string }>) =>
  children
    .map((c) =>
      c.type === "text" || c.type === "code_inline" ? c.content : c.type === "softbreak" ? "\n" : "",
    )
    .join("");

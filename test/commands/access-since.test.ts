/**
 * platform-access review --since: what changed between two reviews of the same group, in every output, against the
 * in-process emulator. The property test makes a random organization, reviews it, makes random changes through the
 * API (bindings added and removed, roles' capabilities changed, identities and groups created and deleted, with
 * hostile names), reviews again with --since, and checks the reported changes against the access model's
 * difference between the two organizations as the API lists them (not as the reviews say), expanded from the
 * "said once where it happens" lines. The Markdown is parsed by a GitHub-flavoured parser (markdown-it).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import MarkdownIt from "markdown-it";
import { BUILTIN_ROLES, type Emulator } from "../../emulator";
import {
  changesBetween,
  readPreviousReview,
  REVIEW_FORMAT_VERSION,
  type ChangedAccess,
  type ReviewChanges,
} from "../../commands/access/changes";
import { CHANGES_CSV_COLUMNS } from "../../commands/access/review-csv";
import { reviewHtml } from "../../commands/access/html";
import { review, type Review } from "../../commands/access/review";
import type { AccessData } from "../../commands/access/read";
import { reviewMarkdown } from "../../commands/access/review-markdown";
import { mdTable, mdText } from "../../commands/markdown";
import { lineText, nameText } from "../../sdk/words";
import { AccessModel, accessDiff, isPrivileged } from "../../sdk/access-model";
import { stringProblem } from "../../sdk/schemas/bounds";
import { RAW_DANGER, hostileName as anyName } from "../hostile-names";
import { accessData, NOW, oneBinding } from "./access-data";
import { CAP_POOL, makeOrg, orgPlans, useAccessCli, type MadeOrg, type OrgPlan } from "./access-fixtures";

jest.setTimeout(300_000);

const viewer = BUILTIN_ROLES.find((r) => r.name === "viewer")!;
const editor = BUILTIN_ROLES.find((r) => r.name === "editor")!;

/** Names that try to break a table, forge a line, open code, a link or emphasis, or inject HTML. */
const HOSTILE = [
  "a|b",
  "line\nforged | row",
  "`code`",
  "<img src=x onerror=alert(1)>",
  "[link](https://evil.example)",
  "**bold** _em_",
  "# heading",
  "- item",
  "\\|",
  "&lt;entity&gt;",
  "\r\n| x | y |\n| --- | --- |",
  "ci",
];
const hostileName = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.string({
    unit: fc.constantFrom("|", "`", "\n", "<", ">", "*", "_", "[", "]", "\\", "a", " "),
    minLength: 1,
  }),
);

/** Hostile names the API accepts (it refuses control characters in a name, so those are tested on the outputs). */
const apiName = hostileName.filter((n) => stringProblem(n, "name") === undefined);

const md = new MarkdownIt({ html: true });
type Token = ReturnType<typeof md.parse>[number];

/** The tables of a Markdown text as parsed: each a header and rows of cells, each cell its inline token. */
function tablesOf(tokens: Token[]): { header: Token[]; rows: Token[][] }[] {
  const tables: { header: Token[]; rows: Token[][] }[] = [];
  let row: Token[] | undefined;
  let inHead = false;
  for (const [i, t] of tokens.entries()) {
    if (t.type === "table_open") tables.push({ header: [], rows: [] });
    if (t.type === "thead_open") inHead = true;
    if (t.type === "thead_close") inHead = false;
    if (t.type === "tr_open") row = [];
    if ((t.type === "th_open" || t.type === "td_open") && row !== undefined) row.push(tokens[i + 1]!);
    if (t.type === "tr_close" && row !== undefined) {
      const table = tables[tables.length - 1]!;
      if (inHead) table.header = row;
      else table.rows.push(row);
      row = undefined;
    }
  }
  return tables;
}

/** The text an inline token renders (what a reader sees). */
const rendered = (inline: Token): string =>
  (inline.children ?? [])
    .map((c) => (c.type === "text" || c.type === "code_inline" ? c.content : ""))
    .join("");

/** What mdText promises: the text itself, each character that could forge or hide a line escaped as text does. */
const asShown = lineText;

describe("--since's refusals", () => {
  it("write the file's name and what they quote from it as one line each, nothing raw (fast-check)", () => {
    const before = JSON.parse(
      JSON.stringify(review(accessData({ ...oneBinding, people: 1 }), { now: NOW })),
    ) as Review;
    const refusal = (content: unknown, file: string) => {
      try {
        readPreviousReview(JSON.stringify(content), file, before.group.uid);
      } catch (e) {
        return (e as Error).message;
      }
      return undefined;
    };
    fc.assert(
      fc.property(anyName, anyName, (file, data) => {
        const refusals = [
          refusal({ ...before, formatVersion: data }, file),
          refusal({ ...before, group: { ...before.group, uid: `${before.group.uid}${data}` } }, file),
          refusal({ ...before, format: 1 }, file),
        ];
        for (const message of refusals) {
          expect(message).toEqual(expect.any(String));
          expect(message).not.toMatch(RAW_DANGER);
          expect(message).not.toMatch(/[\n\r]/);
        }
      }),
      { seed: 20261127, numRuns: 300 },
    );
  });
});

describe("Markdown", () => {
  it("mdText keeps any text one cell of one row, rendered as itself", () => {
    fc.assert(
      fc.property(fc.array(hostileName, { minLength: 1, maxLength: 4 }), (names) => {
        const text = mdTable(
          ["a", "b"],
          names.map((n) => [mdText(n), "x"]),
        );
        const tokens = md.parse(text, {});
        const [table, ...more] = tablesOf(tokens);
        expect(more).toEqual([]);
        expect(table!.rows).toHaveLength(names.length);
        for (const [i, row] of table!.rows.entries()) {
          expect(row).toHaveLength(2);
          // Rendered text is the name: no markup made of it (html_inline, link, emphasis, code are not text).
          // (A cell's leading and trailing spaces are not part of it, in GFM as in HTML's rendering.)
          expect(rendered(row[0]!).trim()).toBe(asShown(names[i]!).trim());
          expect(row[0]!.children!.every((c) => c.type === "text")).toBe(true);
          expect(rendered(row[1]!)).toBe("x");
        }
      }),
      { numRuns: 300, seed: 38 },
    );
  });

  it("a review and its changes with hostile names parse as headings and tables, names as text", () => {
    const org = "e".repeat(40);
    const wl = `${org}/0123456789abcdef`;
    const data = (name: string, roleCaps: string[]): AccessData => ({
      top: { uid: org, name } as AccessData["top"],
      groups: [{ uid: org, name } as AccessData["top"]],
      identities: [{ uid: wl, name } as AccessData["identities"][number]],
      roles: [{ uid: `${org}/00000000000000b1`, name, capabilities: roleCaps }],
      bindings: [
        {
          uid: `${org}/1111111111111111`,
          group: { uid: org, name },
          identity: { uid: wl, name },
          role: { uid: `${org}/00000000000000b1`, name },
        },
      ],
      caller: wl,
      partial: [name],
      calls: 0,
    });
    fc.assert(
      fc.property(hostileName, (name) => {
        const before = review(data(name, ["CAP_REPO_LIST"]), { now: new Date(0) });
        const r = review(data(name, ["CAP_REPO_LIST", "CAP_IAM_ROLE_BINDINGS_CREATE"]), {
          now: new Date(1000),
          since: JSON.parse(JSON.stringify(before)) as Review,
        });
        expect(r.changes!.access).toHaveLength(1);
        const tokens = md.parse(reviewMarkdown(r), {});
        // Nothing from a name becomes markup.
        for (const t of tokens.flatMap((x) => [x, ...(x.children ?? [])]))
          expect([
            "html_block",
            "html_inline",
            "link_open",
            "code_inline",
            "code_block",
            "fence",
            "hr",
          ]).not.toContain(t.type);
        const headings = tokens
          .map((t, i) =>
            t.type === "heading_open" ? `${t.tag} ${rendered(tokens[i + 1]!)}`.trim() : undefined,
          )
          .filter((h) => h !== undefined);
        expect(headings).toEqual([
          `h1 Access review of organization ${nameText(name)}`,
          `h2 Changes since the review read 1970-01-01T00:00:00.000Z as workload identity ${nameText(name)}`,
          "h3 Privileged changes",
          "h3 Roles changed",
          "h2 Identities",
          "h2 Bindings",
          "h2 Roles",
        ]);
        const tables = tablesOf(tokens);
        expect(tables.map((t) => [t.header.map(rendered), t.rows.length])).toEqual([
          [["identity", "on", "change", "through"], 1],
          [["role", "gains", "loses"], 1],
          [["identity", "marks", "last seen"], 1],
          [["identity", "role", "bound on", "groups under it", "privileged capabilities"], 1],
          [["role", "capabilities", "privileged capabilities"], 1],
        ]);
        for (const t of tables) for (const row of t.rows) expect(row).toHaveLength(t.header.length);
        const [change] = tables[0]!.rows;
        // Each name as the text writes it (sdk/words), with its kind: the same words as the preview's.
        expect(change!.map((cell) => rendered(cell)).slice(0, 2)).toEqual([
          `workload identity ${nameText(name)}`,
          `organization ${nameText(name)}`,
        ]);
        // The role was edited: only part of it changes hands, said capability by capability.
        expect(rendered(change![2]!)).toBe("gains CAP_IAM_ROLE_BINDINGS_CREATE");
        expect(rendered(change![3]!)).toBe(`role ${nameText(name)} bound on this group`);
        expect(rendered(tables[2]!.rows[0]![0]!)).toBe(`workload identity ${nameText(name)}`);
      }),
      { numRuns: 100, seed: 38 },
    );
  });
});

describe("platform-access review --since", () => {
  const cli = useAccessCli();
  const { run } = cli;
  const reviewJson = (argv: string[]) => cli.json<Review>(argv);
  let emulator: Emulator;
  let tmp: string;
  beforeAll(() => ({ emulator, tmp } = cli.get()));
  const save = (name: string, value: unknown) => {
    const file = path.join(tmp, name);
    fs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
    return file;
  };

  describe("on an organization changed between two reviews", () => {
    // g0 = eng, g1 = eng/sandbox, g2 = ops; wl0 = ci in eng, wl1 = bot in ops; person0 = alice.
    const plan: OrgPlan = {
      groups: [-1, 0, -1],
      workloads: [0, 2],
      people: 1,
      roles: [{ group: -1, capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST"] }],
      bindings: [
        { identity: 0, role: 0, group: 0 },
        { identity: 1, role: "viewer", group: 2 },
        { identity: 2, role: "viewer", group: -1 },
      ],
    };
    let made: MadeOrg;
    let previous: string;
    let eng: string, sandbox: string, ops: string, archive: string, ci: string, bot: string;
    let r: Review;

    beforeAll(async () => {
      emulator.reset();
      made = await makeOrg(emulator, plan);
      [, eng, sandbox, ops] = made.groups as [string, string, string, string];
      [ci, bot] = made.identities.map((i) => i.uid) as [string, string];
      previous = save("previous.json", (await run(["review", made.org, "--json"])).out);
      // Outside any stack, as a person would in the console: ci becomes editor on eng (privileged), bot loses
      // its binding, a new identity appears, ops gets a folder, the custom role gains a capability.
      await emulator.client.roleBindings.create(eng, { identityUid: ci, roleUid: editor.uid });
      const botBinding = made.bindings.find((b) => b.identity === bot)!;
      await emulator.client.roleBindings.delete(botBinding.uid);
      await emulator.client.identities.create(ops, {
        name: "newcomer",
        claimMatch: { issuer: "https://issuer.example.com", subject: "newcomer" },
      });
      archive = (await emulator.client.groups.create(ops, { name: "archive" })).uid;
      await emulator.client.roles.update(made.roles[0]!.uid, {
        capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST", "CAP_TAG_LIST"],
      });
      r = await reviewJson(["review", made.org, "--since", previous]);
    });

    it("the JSON says what changed, privileged first, each change once where it happens", () => {
      const c = r.changes!;
      expect(c.since.at).toBe((JSON.parse(fs.readFileSync(previous, "utf8")) as Review).at);
      expect(c.since).toMatchObject({ caller: emulator.userUid, callerName: "demo-user" });
      const privilegedEditor = editor.capabilities.filter(isPrivileged);
      expect(privilegedEditor.length).toBeGreaterThan(0);
      // First: ci gains editor's capabilities (less what role0 already gave) on eng, and sandbox under it.
      const first = c.access[0]!;
      expect(first).toMatchObject({
        identity: ci,
        identityName: "wl0",
        identityKind: "workload",
        group: eng,
        groupName: "g0",
        under: [{ uid: sandbox, name: "g1" }],
        lost: [],
        privileged: true,
      });
      expect(first.gained).toEqual(expect.arrayContaining([...privilegedEditor, "CAP_TAG_LIST"]));
      expect(first.through.map((t) => [t.change, t.roleName, t.boundOnName])).toEqual(
        expect.arrayContaining([
          ["gained", "editor", "g0"],
          ["gained", "role0", "g0"],
        ]),
      );
      // bot loses viewer on ops, where it was bound, and on the new folder under it (whose position it held
      // by inheritance before the folder existed: the model's difference); it is still a listed identity.
      const botChange = c.access.find((a) => a.identity === bot)!;
      expect(botChange).toMatchObject({
        group: ops,
        under: [{ uid: archive, name: "archive" }],
        gained: [],
        privileged: false,
      });
      expect(botChange.lost).toEqual([...viewer.capabilities].sort());
      expect(botChange.through).toEqual([
        expect.objectContaining({ change: "lost", roleName: "viewer", boundOn: ops, boundOnName: "g2" }),
      ]);
      expect(c.identities.new.map((i) => [i.name, i.kind, i.privileged])).toEqual([
        ["newcomer", "workload", false],
      ]);
      expect(c.identities.gone).toEqual([]);
      expect(c.groups.new).toEqual([
        expect.objectContaining({ name: "archive", parent: ops, parentName: "g2" }),
      ]);
      expect(c.groups.gone).toEqual([]);
      expect(c.roles).toEqual([
        { uid: made.roles[0]!.uid, name: "role0", added: ["CAP_TAG_LIST"], removed: [] },
      ]);
      // Privileged changes come first.
      const ranks = c.access.map((a) => (a.privileged ? 0 : 1));
      expect(ranks).toEqual([...ranks].sort());
    });

    it("the JSON has a format version, when and as whom it was read, and names beside uids", () => {
      expect(r).toMatchObject({
        format: "platform-access review",
        formatVersion: REVIEW_FORMAT_VERSION,
        caller: emulator.userUid,
        callerName: "demo-user",
      });
      expect(Date.parse(r.at)).not.toBeNaN();
      for (const b of r.bindings) expect(b.groupName).toBe(r.groups.find((x) => x.uid === b.group)!.name);
      // The grants are said once, by the bindings: expanded only when asked.
      expect(r).not.toHaveProperty("grants");
      expect(r.bindings.every((b) => b.groupName !== "" && b.identityName !== "" && b.roleName !== "")).toBe(
        true,
      );
      expect(r.groups.filter((g) => g.parent !== undefined).every((g) => g.parentName !== undefined)).toBe(
        true,
      );
    });

    it("text says the changes first, by name", async () => {
      const text = await run(["review", made.org, "--since", previous]);
      expect(text.code).toBe(0);
      const lines = text.out.split("\n");
      const start = lines.findIndex((l) => l.startsWith("changes since the review read "));
      expect(start).toBeGreaterThan(0);
      expect(lines[start]).toMatch(
        / as user demo-user: 2 changes of access \(1 privileged\), 1 identity new, 0 gone, 1 group new, 0 gone, 1 role changed$/,
      );
      expect(lines[start + 1]).toBe("  privileged:");
      expect(lines[start + 2]).toMatch(
        /^ {4}workload identity wl0 on folder g0 and the 1 folder under it: gains .*CAP_IAM_ROLE_BINDINGS_CREATE\* .*through built-in role editor bound on folder g0/,
      );
      expect(lines).toContain("  identities new (1): workload identity newcomer");
      expect(lines).toContain("  groups new (1): folder archive (under folder g2)");
      expect(lines).toContain("  role role0 gains CAP_TAG_LIST");
      expect(lines.indexOf("  access:")).toBeGreaterThan(start + 2);
      expect(lines.slice(start, lines.indexOf("identities (4):"))).not.toContainEqual(
        expect.stringContaining(made.org),
      );
    });

    it("the CSV is one row per fact of the changes", async () => {
      const csv = await run(["review", made.org, "--since", previous, "--csv"]);
      const rows = csv.out
        .trimEnd()
        .split("\r\n")
        .map((l) => l.split(","));
      expect(rows[0]).toEqual([...CHANGES_CSV_COLUMNS]);
      const col = (name: (typeof CHANGES_CSV_COLUMNS)[number]) => CHANGES_CSV_COLUMNS.indexOf(name);
      const body = rows.slice(1);
      expect(body[0]!.slice(0, 8)).toEqual(["gained", "true", ci, "wl0", "workload", eng, "g0", "1"]);
      const lost = body.filter((row) => row[col("change")] === "lost");
      expect(lost.map((row) => row[col("capability")]).sort()).toEqual([...viewer.capabilities].sort());
      expect(new Set(lost.map((row) => row[col("identity_name")]))).toEqual(new Set(["wl1"]));
      expect(
        body.filter((row) => row[col("change")] === "identity new").map((row) => row[col("identity_name")]),
      ).toEqual(["newcomer"]);
      expect(
        body.filter((row) => row[col("change")] === "group new").map((row) => row[col("group_name")]),
      ).toEqual(["archive"]);
      expect(body.find((row) => row[col("change")] === "role capability added")).toEqual(
        expect.arrayContaining(["CAP_TAG_LIST", made.roles[0]!.uid, "role0"]),
      );
      // Every gained or lost row is one capability of one change, through one binding.
      const accessRows = body.filter((row) => ["gained", "lost"].includes(row[0]!));
      expect(accessRows).toHaveLength(
        r.changes!.access.reduce((n, a) => n + a.through.reduce((m, t) => m + t.capabilities.length, 0), 0),
      );
    });

    it("Markdown and HTML say the changes too", async () => {
      const markdown = await run(["review", made.org, "--since", previous, "--markdown"]);
      expect(markdown.code).toBe(0);
      const tokens = md.parse(markdown.out, {});
      const [privileged] = tablesOf(tokens);
      expect(privileged!.rows.map((row) => row.slice(0, 2).map(rendered))).toEqual([
        ["workload identity wl0", "folder g0 and the 1 folder under it"],
      ]);
      const file = path.join(tmp, "since.html");
      expect((await run(["review", made.org, "--since", previous, "--html", file])).code).toBe(0);
      const html = fs.readFileSync(file, "utf8");
      expect(html).toContain('<section class="changes" id="changes"><h2>Changes since the review read ');
      expect(html).toMatch(
        /<tr class="change-row" data-identity="[^"]+" data-privileged="true"><td><strong>wl0<\/strong> <span class="mark">workload identity<\/span>/,
      );
      expect(html.indexOf('id="changes"')).toBeLessThan(html.indexOf('class="legend"'));
    });

    it("--fail-on-new-privileged exits 2 on a privileged capability newly held, naming it", async () => {
      const failing = await run(["review", made.org, "--since", previous, "--fail-on-new-privileged"]);
      expect(failing.code).toBe(2);
      expect(failing.err.filter((l) => l.startsWith("new privileged: "))).toEqual([
        expect.stringMatching(
          /^new privileged: workload identity wl0 on folder g0 and the 1 folder under it: gains /,
        ),
      ]);
      // Since a review that already had it: nothing new, exit 0.
      const now = save("now.json", JSON.stringify(r));
      const again = await run(["review", made.org, "--since", now, "--fail-on-new-privileged"]);
      expect(again.code).toBe(0);
      expect(again.out).toMatch(/^changes since the review read .*: 0 changes of access \(0 privileged\)/m);
    });

    it("refuses, in one line and before any API call, what it cannot compare", async () => {
      const old = JSON.parse(fs.readFileSync(previous, "utf8")) as Record<string, unknown>;
      const without = (name: string) => Object.fromEntries(Object.entries(old).filter(([k]) => k !== name));
      const cases: [string, unknown, RegExp][] = [
        ["not-json.json", "{", /is not JSON: --since takes a file written by platform-access review --json/],
        ["array.json", "[]", /is not a platform-access review/],
        [
          "proto.json",
          '{"__proto__": {"format": "platform-access review"}}',
          /is not a platform-access review/,
        ],
        ["who-can.json", { capability: "CAP_REPO_LIST", grants: [] }, /is not a platform-access review/],
        [
          "v1.json",
          // Version 1 listed every grant, and had neither a format nor the bindings.
          { ...without("format"), formatVersion: undefined, bindings: undefined, grants: [] },
          /is a review without a format version, written before reviews could be compared/,
        ],
        [
          "v4.json",
          { ...old, formatVersion: 4 },
          /is a review in format version 4; this platform-access reads versions 2 and 3/,
        ],
        ["no-bindings.json", without("bindings"), /is not a complete review: bindings: /],
        [
          "other-group.json",
          { ...old, group: { uid: eng, name: "g0\nforged" } },
          /is a review of "g0\\nforged" \(.*\), not of /,
        ],
      ];
      for (const [name, content, message] of cases) {
        emulator.clearRequestLog();
        const refused = await run(["review", made.org, "--since", save(name, content)]);
        expect([name, refused.code, refused.err]).toEqual([name, 1, [expect.stringMatching(message)]]);
        expect(emulator.requestLog()).toEqual([]);
      }
      const alone = await run(["review", made.org, "--fail-on-new-privileged"]);
      expect(alone.err).toEqual([
        expect.stringMatching(/--fail-on-new-privileged needs --since PREVIOUS.json/),
      ]);
      expect(
        (await run(["review", made.org, "--since", previous, "--markdown", "--json"])).err.join(""),
      ).toMatch(/choose one of --json, --csv, --markdown, --html/);
    });
  });

  it("names by name; the uid only to tell two apart", async () => {
    emulator.reset();
    const org = emulator.orgUid;
    const a = await emulator.client.groups.create(org, { name: "team a" });
    const b = await emulator.client.groups.create(org, { name: "team b" });
    const twins = await Promise.all(
      [a, b].map((g) =>
        emulator.client.identities.create(g.uid, {
          name: "deployer",
          claimMatch: { issuer: "https://issuer.example.com", subject: g.uid },
        }),
      ),
    );
    const solo = await emulator.client.identities.create(a.uid, {
      name: "solo",
      claimMatch: { issuer: "https://issuer.example.com", subject: "solo" },
    });
    for (const i of [...twins, solo])
      await emulator.client.roleBindings.create(a.uid, { identityUid: i.uid, roleUid: viewer.uid });
    const text = await run(["who-can", "CAP_REPO_LIST", "--on", a.uid]);
    const on = 'on folder "team a"';
    expect(text.out).toContain(
      `  ${on}: workload identity deployer (${twins[0]!.uid}) [unused (never seen)]\n`,
    );
    // The twin under team b is not listed by a read of team a (its last use is not known), but still told apart.
    expect(text.out).toContain(`  ${on}: workload identity deployer (${twins[1]!.uid})\n`);
    expect(text.out).toContain(`  ${on}: workload identity solo [unused (never seen)]\n`);
    expect(text.out).toContain(`  ${on}: user demo-user [privileged]\n`);
    const what = await run(["what-can", solo.uid]);
    expect(what.out.split("\n")[0]).toBe(
      "what workload identity solo holds under organization demo-org [unused (never seen)]:",
    );
    const answer = JSON.parse((await run(["what-can", solo.uid, "--json"])).out) as Record<string, unknown>;
    expect(answer).toMatchObject({
      identity: solo.uid,
      identityName: "solo",
      group: org,
      groupName: "demo-org",
    });
  });

  it("the reported changes are the model's difference between the two organizations", async () => {
    /** The organization as the API lists it, as the access model takes it (not as a review says). */
    const listed = async (org: string) => {
      const c = emulator.client;
      const under = { descendantsOf: org, pageSize: 200 };
      const [groups, identities, roles, bindings] = await Promise.all([
        c.groups.list(under).all(),
        c.identities.list(under).all(),
        c.roles.list(under).all(),
        c.roleBindings.list(under).all(),
      ]);
      const facts = bindings.map((b) => ({
        uid: b.uid,
        group: b.group!.uid,
        identity: b.identity!.uid,
        role: b.role!.uid,
      }));
      return {
        groups: [org, ...groups.map((g) => g.uid)],
        identities: new Set([...identities.map((i) => i.uid), ...facts.map((b) => b.identity)]),
        bindings: facts,
        model: new AccessModel({
          roles: roles.map((r) => ({ uid: r.uid, name: r.name, capabilities: r.capabilities ?? [] })),
          bindings: facts,
        }),
      };
    };
    const change = fc.oneof(
      fc.record({ kind: fc.constant("bind" as const), identity: fc.nat(), role: fc.nat(), group: fc.nat() }),
      fc.record({ kind: fc.constant("unbind" as const), pick: fc.nat() }),
      fc.record({
        kind: fc.constant("role" as const),
        pick: fc.nat(),
        capabilities: fc.uniqueArray(fc.constantFrom(...CAP_POOL, "CAP_IAM_ROLES_CREATE"), {
          minLength: 1,
          maxLength: 4,
        }),
      }),
      fc.record({ kind: fc.constant("identity" as const), group: fc.nat(), name: apiName }),
      fc.record({ kind: fc.constant("person" as const), name: apiName, group: fc.nat() }),
      fc.record({ kind: fc.constant("drop identity" as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant("group" as const), parent: fc.nat() }),
      fc.record({ kind: fc.constant("drop group" as const), pick: fc.nat() }),
    );
    const planArb = orgPlans({ groups: 4, roles: 2, bindings: 6 });
    const builtins = [viewer.uid, editor.uid];
    await fc.assert(
      fc.asyncProperty(planArb, fc.array(change, { minLength: 1, maxLength: 8 }), async (plan, changes) => {
        emulator.reset();
        const made = await makeOrg(emulator, plan);
        const org = made.org;
        const before = await listed(org);
        const previous = save("property.json", (await run(["review", org, "--json"])).out);
        const c = emulator.client;
        const pick = <T>(list: readonly T[], n: number): T | undefined =>
          list.length === 0 ? undefined : list[n % list.length];
        for (const step of changes) {
          const now = await listed(org);
          const roles = (await c.roles.list({ descendantsOf: org, pageSize: 200 }).all()).filter((r) =>
            r.uid.includes("/"),
          );
          const mine = now.bindings.filter((b) => b.identity !== emulator.userUid);
          if (step.kind === "bind") {
            const identity = pick(
              [...now.identities].filter((i) => i !== emulator.userUid),
              step.identity,
            );
            const group = pick(now.groups, step.group)!;
            const custom = roles.filter((r) => group.startsWith(`${r.uid.slice(0, r.uid.lastIndexOf("/"))}`));
            const role = pick([...builtins, ...custom.map((r) => r.uid)], step.role)!;
            if (identity === undefined) continue;
            await c.roleBindings
              .create(group, { identityUid: identity, roleUid: role })
              .catch(() => undefined);
          } else if (step.kind === "unbind") {
            const b = pick(mine, step.pick);
            if (b !== undefined) await c.roleBindings.delete(b.uid);
          } else if (step.kind === "role") {
            const role = pick(roles, step.pick);
            if (role !== undefined) await c.roles.update(role.uid, { capabilities: step.capabilities });
          } else if (step.kind === "identity") {
            await c.identities.create(pick(now.groups, step.group)!, {
              name: step.name,
              claimMatch: { issuer: "https://issuer.example.com", subject: `s${Math.random()}` },
            });
          } else if (step.kind === "person") {
            const person = emulator.createUser(step.name);
            await c.roleBindings.create(pick(now.groups, step.group)!, {
              identityUid: person.uid,
              roleUid: viewer.uid,
            });
          } else if (step.kind === "drop identity") {
            const identity = pick(
              [...now.identities].filter((i) => i.includes("/")),
              step.pick,
            );
            if (identity !== undefined) await c.identities.delete(identity);
          } else if (step.kind === "group") {
            await c.groups.create(pick(now.groups, step.parent)!, { name: `new ${step.parent % 7}` });
          } else {
            // Only an empty group can go (the service refuses others, changing nothing).
            const group = pick(now.groups.slice(1), step.pick);
            if (group !== undefined) await c.groups.delete(group).catch(() => undefined);
          }
        }
        const after = await listed(org);
        const r = await reviewJson(["review", org, "--since", previous]);
        const reported = r.changes!;
        // The access: each line expanded to the groups it speaks for equals the model's difference.
        const groups = [...new Set([...before.groups, ...after.groups])];
        const expected = accessDiff(before.model, after.model, groups).map((d) => JSON.stringify(d));
        const expanded = reported.access.flatMap((a) =>
          [a.group, ...a.under.map((u) => u.uid)].map((group) =>
            JSON.stringify({ identity: a.identity, group, gained: a.gained, lost: a.lost }),
          ),
        );
        expect(expanded.sort()).toEqual(expected.sort());
        checkSaidOnce(reported.access, groups);
        checkThrough(reported.access, before.model, after.model);
        const ranks = reported.access.map((a) => (a.gained.some(isPrivileged) ? 0 : a.privileged ? 1 : 2));
        expect(ranks).toEqual([...ranks].sort());
        // Identities and groups new and gone: as the API lists them.
        const uids = (list: { uid: string }[]) => list.map((x) => x.uid).sort();
        expect(uids(reported.identities.new)).toEqual(
          [...after.identities].filter((i) => !before.identities.has(i)).sort(),
        );
        expect(uids(reported.identities.gone)).toEqual(
          [...before.identities].filter((i) => !after.identities.has(i)).sort(),
        );
        expect(uids(reported.groups.new)).toEqual(
          after.groups.filter((g) => !before.groups.includes(g)).sort(),
        );
        expect(uids(reported.groups.gone)).toEqual(
          before.groups.filter((g) => !after.groups.includes(g)).sort(),
        );
        // The same changes whichever way the earlier review reached the code: the file, or the review itself.
        const again: ReviewChanges = changesBetween(
          JSON.parse(fs.readFileSync(previous, "utf8")) as Review,
          r,
        );
        expect(again).toEqual(reported);
        // Every output carries them; the Markdown parses as tables whose rows have the header's cells.
        const markdown = await run(["review", org, "--since", previous, "--markdown"]);
        for (const t of tablesOf(md.parse(markdown.out, {})))
          for (const row of t.rows) expect(row).toHaveLength(t.header.length);
        expect(reviewHtml(r).match(/<tr class="change-row"/g)?.length ?? 0).toBe(reported.access.length);
      }),
      { numRuns: 40, seed: 38 },
    );
  });
});

/** Said once where it happens: no line's group has a parent whose line for the same identity changes the same way. */
function checkSaidOnce(access: ChangedAccess[], groups: string[]): void {
  const sig = (a: ChangedAccess) => `${a.identity} ${a.gained.join(",")}|${a.lost.join(",")}`;
  const covered = new Map<string, string>();
  for (const a of access)
    for (const g of [a.group, ...a.under.map((u) => u.uid)]) covered.set(`${a.identity} ${g}`, sig(a));
  for (const a of access) {
    const parent = a.group.slice(0, Math.max(0, a.group.lastIndexOf("/")));
    if (groups.includes(parent)) expect(covered.get(`${a.identity} ${parent}`)).not.toBe(sig(a));
    for (const u of a.under) expect(u.uid.startsWith(`${a.group}/`)).toBe(true);
  }
}

/** Each capability gained is granted, in the later organization, by the bindings named (lost: in the earlier). */
function checkThrough(access: ChangedAccess[], before: AccessModel, after: AccessModel): void {
  for (const a of access)
    for (const [side, model, capabilities] of [
      ["gained", after, a.gained],
      ["lost", before, a.lost],
    ] as const) {
      const through = a.through.filter((t) => t.change === side);
      expect([...new Set(through.flatMap((t) => t.capabilities))].sort()).toEqual(capabilities);
      for (const t of through) {
        const binding = model.bindingsOf(a.identity).find((b) => b.uid === t.binding)!;
        expect(binding).toMatchObject({ role: t.role, group: t.boundOn });
        expect(a.group === t.boundOn || a.group.startsWith(`${t.boundOn}/`)).toBe(true);
        for (const cap of t.capabilities) expect(model.roleCapabilities(t.role)).toContain(cap);
      }
    }
}

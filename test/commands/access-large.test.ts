/**
 * Access said as a reviewer reads it, at real size and in every output, in process (no emulator):
 *
 * - the 300-folder review (`--since` an earlier one) and the plan of 1,000 new folders print the headline, every
 *   privileged change by name and the like rest said once within their first 25 lines; their Markdown parses as
 *   GitHub-flavoured Markdown (headings, tables) under 20 KB; the JSON keeps every change;
 * - a role gained whole is said by its name, count and privileged capabilities, a role gained in part capability by
 *   capability, in each output (text, Markdown, CSV, JSON, page, plan text and Markdown, the pack's lines, the
 *   provider's impact lines);
 * - like changes said together expand to exactly the model's difference, and every list is in the one order
 *   (fast-check, fixed seeds, random organizations and changes).
 */
import fc from "fast-check";
import MarkdownIt from "markdown-it";
import { BUILTIN_ROLES } from "../../emulator";
import { expanded, sayAlike } from "../../commands/access/alike";
import { changesBetween, readPreviousReview, type ReviewChanges } from "../../commands/access/changes";
import { changesHtml } from "../../commands/access/changes-html";
import { reviewHtml } from "../../commands/access/html";
import { LISTED, changeShape, newnessOf } from "../../commands/access/change-words";
import { CHANGES_CSV_COLUMNS, changesCsv } from "../../commands/access/review-csv";
import { reviewText } from "../../commands/access/review-text";
import { createdBindingsText, planMarkdown, planText } from "../../commands/access/plan-format";
import { review, whatCan, whoCan, type Review } from "../../commands/access/review";
import { reviewMarkdown, whatCanMarkdown, whoCanMarkdown } from "../../commands/access/review-markdown";
import { escapeHtml } from "../../commands/access/html-text";
import { describeImpactLine, type ImpactLine } from "../../provider/core/access-words";
import { byWholeRoles, isPrivileged } from "../../sdk/access-model";
import { Names, compareNames, nameText } from "../../sdk/words";
import { accessData, NOW, oneBinding, plan as orgPlan, type Plan } from "./access-data";
import { CAP_POOL } from "./access-fixtures";
import { DEPLOYER, EDITOR_FOLDERS, LARGE_ORG, largePlan, largeReview } from "./large-changes";

const md = new MarkdownIt();
const editor = BUILTIN_ROLES.find((r) => r.name === "editor")!;
const EDITOR_PRIVILEGED = editor.capabilities.filter(isPrivileged);

/** The headings and table headers a Markdown text parses into (markdown-it: CommonMark and GFM tables). */
function structure(text: string): { headings: string[]; tables: number } {
  const tokens = md.parse(text, {});
  return {
    headings: tokens.filter((t) => t.type === "heading_open").map((_, i, all) => all[i]!.tag),
    tables: tokens.filter((t) => t.type === "table_open").length,
  };
}

describe("300 new folders reviewed --since, 1,000 in a plan", () => {
  const r = largeReview();
  const p = largePlan();

  test("the review's text: the headline, each privileged change by name and the like rest, in 25 lines", () => {
    const lines = reviewText(r).split("\n");
    const first = lines.slice(0, 25);
    const start = first.findIndex((l) => l.startsWith("changes since the review read"));
    expect(first[start]).toContain("300 changes of access (3 privileged)");
    for (const n of [...EDITOR_FOLDERS].sort((a, b) => a - b))
      expect(first).toContain(
        `    workload identity ci-${n} on folder team-${n}: becomes built-in role editor ` +
          `(24 capabilities, 6 privileged: ${EDITOR_PRIVILEGED.join(" ")})`,
      );
    expect(first).toContain(
      "    each of 297 new workload identities becomes role deployer (3 capabilities) on its own new folder: " +
        "ci-0 in team-0, ci-1 in team-1, ci-2 in team-2 and 294 more",
    );
    // The JSON keeps every change.
    expect(r.changes!.access).toHaveLength(300);
    expect(JSON.parse(JSON.stringify(r)).changes.access).toHaveLength(300);
  });

  test("the review's Markdown parses as headings and tables, under 20 KB", () => {
    const text = reviewMarkdown(r);
    expect(Buffer.byteLength(text)).toBeLessThan(20 * 1024);
    const { headings, tables } = structure(text);
    expect(headings.length).toBeGreaterThan(3);
    expect(tables).toBeGreaterThan(3);
    expect(text).toContain(
      "each of 297 new workload identities: ci\\-0 in team\\-0, ci\\-1 in team\\-1, ci\\-2 in team\\-2 and 294 more",
    );
    expect(text.split("\n").filter((l) => l.includes("becomes built\\-in role editor"))).toHaveLength(3);
  });

  test("the plan's text: the headline and the like changes once, in 25 lines; its Markdown under 20 KB", () => {
    const lines = planText(p);
    expect(lines.length).toBeLessThanOrEqual(25);
    expect(lines).toEqual([
      "access plan: this update grants 3000 capabilities to 1000 identities and revokes none",
      "  each of 1000 new workload identities becomes role deployer (3 capabilities) on its own new folder: " +
        "ci-0 in team-0, ci-1 in team-1, ci-2 in team-2 and 997 more",
    ]);
    expect(p.changes).toHaveLength(1000);
    // What the command prints after the summary: the bindings it creates, like ones in one line.
    expect(createdBindingsText(p)).toEqual([
      "will bind each of 1000 new workload identities to role deployer on its own new folder: " +
        "ci-0 in team-0, ci-1 in team-1, ci-2 in team-2 and 997 more (1000 RoleBinding resources)",
    ]);
    const text = planMarkdown(p);
    expect(text).toContain(
      "| 1000 RoleBinding resources | each of 1000 new workload identities: ci\\-0 in team\\-0",
    );
    expect(Buffer.byteLength(text)).toBeLessThan(20 * 1024);
    const { headings, tables } = structure(text);
    expect(headings.length).toBeGreaterThanOrEqual(2);
    expect(tables).toBeGreaterThanOrEqual(1);
  });
});

/** Two reviews of one organization: an identity gains editor whole on one folder, and part of viewer on another. */
function wholeAndPartial(): Review {
  const hex = (n: number) => n.toString(16).padStart(16, "0");
  const viewer = BUILTIN_ROLES.find((x) => x.name === "viewer")!;
  const top = { uid: LARGE_ORG, name: "acme" };
  const apps = { uid: `${LARGE_ORG}/${hex(1)}`, name: "apps" };
  const web = { uid: `${LARGE_ORG}/${hex(2)}`, name: "web" };
  const bot = { uid: `${apps.uid}/${hex(3)}`, name: "bot" };
  const lister = { uid: `${LARGE_ORG}/${hex(4)}`, name: "lister", capabilities: ["CAP_REPO_LIST"] };
  const binding = (n: number, group: { uid: string; name: string }, role: { uid: string; name: string }) => ({
    uid: `${group.uid}/${hex(0xb0 + n)}`,
    group,
    identity: bot,
    role: { uid: role.uid, name: role.name },
  });
  const data = (bindings: ReturnType<typeof binding>[]) =>
    ({
      top,
      groups: [top, apps, web],
      identities: [bot],
      roles: [editor, viewer, lister],
      bindings,
      caller: undefined,
      partial: [],
      calls: 0,
    }) as unknown as Parameters<typeof review>[0];
  // Before: bot lists repos on web. After: editor on apps (whole), viewer on web (all but CAP_REPO_LIST: partial).
  const before = review(data([binding(1, web, lister)]), { now: NOW });
  return review(data([binding(1, web, lister), binding(2, apps, editor), binding(3, web, viewer)]), {
    now: NOW,
    since: readPreviousReview(JSON.stringify(before), "before.json", LARGE_ORG),
  });
}

describe("a role gained whole is said by its name, one gained in part by its capabilities", () => {
  const r = wholeAndPartial();
  const changes = r.changes!;
  const onApps = changes.access.find((a) => a.groupName === "apps")!;
  const onWeb = changes.access.find((a) => a.groupName === "web")!;

  test("the model decides: whole for editor on apps, partial for viewer over lister on web", () => {
    expect(onApps.through.map((t) => [t.roleName, t.whole])).toEqual([["editor", true]]);
    expect(onWeb.through.map((t) => [t.roleName, t.whole])).toEqual([["viewer", false]]);
    expect(onWeb.gained).not.toContain("CAP_REPO_LIST");
  });

  test("text", () => {
    const text = reviewText(r);
    expect(text).toContain(
      `workload identity bot on folder apps: becomes built-in role editor (24 capabilities, 6 privileged: ${EDITOR_PRIVILEGED.join(" ")})`,
    );
    expect(text).toMatch(
      /workload identity bot on folder web: gains CAP_\S+ .* through built-in role viewer bound on folder web/,
    );
    expect(text).not.toMatch(/becomes built-in role viewer/);
  });

  test("Markdown: each cell its fact", () => {
    const text = reviewMarkdown(r);
    const row = (name: string) =>
      text.split("\n").find((l) => l.startsWith(`| workload identity bot | folder ${name}`))!;
    expect(row("apps")).toContain(
      "| becomes built\\-in role editor (24 capabilities, 6 privileged: **CAP\\_",
    );
    expect(row("apps")).toMatch(/\| bound on this group \|$/);
    expect(row("web")).toMatch(/\| gains CAP\\_\S+.* \| built\\-in role viewer bound on this group \|$/);
    // No cell repeats another: the role is said once per row, the capabilities once.
    for (const line of [row("apps"), row("web")]) {
      const cells = line.split(" | ");
      expect(new Set(cells).size).toBe(cells.length);
      expect(line.split("role editor").length + line.split("role viewer").length).toBe(3);
    }
    // The whole role's every capability is one step away.
    expect(text).toContain("### Roles said by name");
  });

  test("CSV: whole_role says which rows are a role said whole", () => {
    const rows = changesCsv(changes)
      .trimEnd()
      .split("\r\n")
      .map((l) => l.split(","));
    const at = (column: string) => CHANGES_CSV_COLUMNS.indexOf(column as never);
    const access = rows.slice(1).filter((row) => row[at("change")] === "gained");
    expect(
      new Set(access.filter((row) => row[at("role_name")] === "editor").map((row) => row[at("whole_role")])),
    ).toEqual(new Set(["true"]));
    expect(
      new Set(access.filter((row) => row[at("role_name")] === "viewer").map((row) => row[at("whole_role")])),
    ).toEqual(new Set(["false"]));
  });

  test("JSON", () => {
    const json = JSON.parse(JSON.stringify(r)) as Review;
    expect(json.changes!.access.flatMap((a) => a.through.map((t) => [t.roleName, t.whole])).sort()).toEqual([
      ["editor", true],
      ["viewer", false],
    ]);
  });

  test("page", () => {
    const html = changesHtml(r);
    expect(html).toContain("becomes built-in role editor (24 capabilities, 6 privileged: ");
    // The size in its parentheses, every capability one click away after them (a block inside would break the line).
    expect(html).toMatch(
      /becomes built-in role editor \(24 capabilities, 6 privileged: [^()]*\)<details><summary>every capability<\/summary>/,
    );
    expect(html).toMatch(/gains <span class="cap">CAP_/);
    expect(html).not.toContain("becomes built-in role viewer");
  });

  test("page at 300 folders: the like changes in one row, new names listed as the text lists them", () => {
    const html = changesHtml(largeReview());
    const section = (title: string) => html.slice(html.indexOf(`<h3>${title}</h3>`)).split("<h3>")[1]!;
    const others = section("Other changes of access");
    expect(others.match(/<tr class="change-row"/g)).toHaveLength(1);
    expect(others).toMatch(/\(3 capabilities\)<details><summary>every capability<\/summary>/);
    const identities = section("Identities new and gone");
    const [shown, folded] = identities.split("<details>");
    expect(shown!.match(/<li>/g)).toHaveLength(LISTED);
    expect(folded).toContain(`<summary>and ${300 - LISTED} more</summary>`);
    expect(identities.match(/<li>/g)).toHaveLength(300);
  });

  test("the provider's impact lines", () => {
    const names = new Names().add("identity", "o/i", "bot").add("group", "o/g", "apps");
    names.add("role", editor.uid, "editor").add("role", DEPLOYER.uid, "deployer");
    const line = (l: Partial<ImpactLine>): ImpactLine => ({
      identity: "o/i",
      group: "o/g",
      inheritedBy: 0,
      gained: [],
      lost: [],
      roles: [],
      ...l,
    });
    const whole = byWholeRoles(editor.capabilities, [{ uid: editor.uid, capabilities: editor.capabilities }]);
    expect(
      describeImpactLine(
        line({
          gained: [...editor.capabilities],
          roles: [editor.uid],
          wholeRoles: whole.whole.map((w) => ({
            change: "gained",
            role: w.uid,
            capabilities: w.capabilities,
          })),
          rest: { gained: whole.rest, lost: [] },
        }),
        "RoleBinding x",
        names,
      ),
    ).toBe(
      `access: workload identity bot becomes built-in role editor (24 capabilities, 6 privileged: ${EDITOR_PRIVILEGED.join(", ")}) on folder apps (RoleBinding x)`,
    );
    // Part of a role (it held one capability already): said capability by capability, through the role.
    const part = DEPLOYER.capabilities.slice(1);
    const partial = byWholeRoles(part, [DEPLOYER]);
    expect(partial.whole).toEqual([]);
    expect(
      describeImpactLine(
        line({
          gained: part,
          roles: [DEPLOYER.uid],
          wholeRoles: [],
          rest: { gained: partial.rest, lost: [] },
        }),
        "RoleBinding y",
        names,
      ),
    ).toBe(
      `access: workload identity bot gains ${part.join(", ")} on folder apps, through role deployer (RoleBinding y)`,
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Properties over random organizations and changes.

/**
 * Two random states of one organization: the later keeps some of the earlier's bindings, adds folders, workloads and
 * bindings (some of them, many alike: each new workload bound on its own new folder), and may edit the roles.
 */
const pairs: fc.Arbitrary<[Plan, Plan]> = orgPlan.chain((a) =>
  fc
    .record({
      keep: fc.array(fc.boolean(), { minLength: a.bindings.length, maxLength: a.bindings.length }),
      folders: fc.array(fc.nat(), { maxLength: 6 }),
      alike: fc.nat(6),
      extra: fc.array(fc.record({ identity: fc.nat(), role: fc.nat(), group: fc.nat() }), { maxLength: 6 }),
      roles: fc.option(
        fc.array(fc.subarray([...CAP_POOL]), { minLength: a.roles.length, maxLength: a.roles.length }),
      ),
    })
    .map(({ keep, folders, alike, extra, roles }): [Plan, Plan] => {
      const parents = [...a.parents, ...folders.map((x) => (x % (a.parents.length + 1)) - 1)];
      // Each alike workload on a folder of its own, bound there to the first role.
      const own = Array.from({ length: alike }, (_, i) => parents.length + i);
      const allParents = [...parents, ...own.map(() => -1)];
      const workloads = [...a.workloads, ...own];
      const bindings = [
        ...a.bindings.filter((_, i) => keep[i]),
        ...extra,
        ...own.map((group, i) => ({ identity: a.workloads.length + i, role: 0, group: group + 1 })),
      ];
      return [
        { ...a, hidden: [] },
        {
          ...a,
          parents: allParents,
          names: [...a.names, ...allParents.slice(a.names.length).map((_, i) => `team-${i + 2}`)],
          workloads,
          roles: roles ?? a.roles,
          bindings,
          hidden: [],
        },
      ];
    }),
);

function compared([a, b]: [Plan, Plan]): { changes: ReviewChanges; r: Review; before: Review } {
  const before = JSON.parse(JSON.stringify(review(accessData(a), { now: NOW }))) as Review;
  const r = review(accessData(b), { now: NOW, since: before });
  return { changes: r.changes!, r, before };
}

test("like changes said together expand to exactly the model's difference (fast-check)", () => {
  let grouped = 0;
  fc.assert(
    fc.property(pairs, fc.integer({ min: 2, max: 5 }), (pair, least) => {
      const { changes, r, before } = compared(pair);
      const newness = newnessOf(changes);
      const shape = (c: (typeof changes.access)[number]) => changeShape(c, newness);
      const said = sayAlike(changes.access, shape, least);
      // Every change once: the grouped output expands to the difference, nothing lost, nothing twice.
      expect(
        expanded(said)
          .map((c) => `${c.identity} ${c.group}`)
          .sort(),
      ).toEqual(changes.access.map((c) => `${c.identity} ${c.group}`).sort());
      for (const s of said) {
        if ("alone" in s) continue;
        expect(s.alike.length).toBeGreaterThanOrEqual(least);
        // Alike: one shape, none privileged, every one a whole role.
        expect(new Set(s.alike.map(shape))).toEqual(new Set([s.shape]));
        for (const c of s.alike) {
          expect(c.privileged).toBe(false);
          expect(c.through.every((t) => t.whole)).toBe(true);
        }
      }
      // Whole roles: each said whole is gained (or lost) entire with the change, through a binding the change
      // makes (or removes); a binding in both reviews (its role edited) gives or takes only part of it.
      const bound = (x: Review) => new Set(x.bindings.map((b) => `${b.uid} ${b.identity}`));
      const [then, now] = [bound(before), bound(r)];
      for (const c of changes.access)
        for (const t of c.through.filter((x) => x.whole)) {
          for (const cap of t.capabilities) expect(t.change === "gained" ? c.gained : c.lost).toContain(cap);
          expect((t.change === "gained" ? then : now).has(`${t.binding} ${c.identity}`)).toBe(false);
        }
      if (said.some((x) => "alike" in x)) grouped++;
    }),
    { seed: 4601, numRuns: 150 },
  );
  // The generator makes like changes: the property is not only about changes said alone.
  expect(grouped).toBeGreaterThan(10);
});

test("the text's like lines count every change said together (fast-check)", () => {
  fc.assert(
    fc.property(pairs, (pair) => {
      const { changes, r } = compared(pair);
      const lines = reviewText(r).split("\n");
      const start = lines.findIndex((l) => l === "  access:");
      if (start < 0) return;
      const end = lines.findIndex((l, i) => i > start && !l.startsWith("    "));
      const said = lines.slice(start + 1, end < 0 ? undefined : end);
      const counted = said.reduce((n, l) => n + Number(/^ {4}each of (\d+) /.exec(l)?.[1] ?? 1), 0);
      expect(counted).toBe(changes.access.filter((a) => !a.privileged).length);
    }),
    { seed: 4602, numRuns: 150 },
  );
});

test("every list is in the one order: privileged first, then names with numbers as numbers (fast-check)", () => {
  expect(compareNames("team-2", "team-10")).toBeLessThan(0);
  expect(compareNames("Team-1", "team-2")).toBeLessThan(0);
  fc.assert(
    fc.property(pairs, (pair) => {
      const { changes } = compared(pair);
      const name = (x: { name: string; uid: string }) => x.name || x.uid;
      const sorted = <T>(list: readonly T[], cmp: (a: T, b: T) => number) =>
        list.every((x, i) => i === 0 || cmp(list[i - 1]!, x) <= 0);
      const byPrivilegeThenName = (a: { privileged: boolean; name: string; uid: string }, b: typeof a) =>
        Number(b.privileged) - Number(a.privileged) || compareNames(name(a), name(b));
      expect(sorted(changes.identities.new, byPrivilegeThenName)).toBe(true);
      expect(sorted(changes.identities.gone, byPrivilegeThenName)).toBe(true);
      expect(sorted(changes.groups.new, (a, b) => compareNames(name(a), name(b)))).toBe(true);
      expect(sorted(changes.groups.gone, (a, b) => compareNames(name(a), name(b)))).toBe(true);
      expect(sorted(changes.roles, (a, b) => compareNames(name(a), name(b)))).toBe(true);
      // The changes of access: privileged gains, privileged losses, the rest; each by identity, then group.
      const rank = (c: (typeof changes.access)[number]) =>
        c.gained.some(isPrivileged) ? 0 : c.privileged ? 1 : 2;
      const identityName = (c: (typeof changes.access)[number]) => c.identityName || c.identity;
      expect(
        sorted(changes.access, (a, b) => rank(a) - rank(b) || compareNames(identityName(a), identityName(b))),
      ).toBe(true);
    }),
    { seed: 4603, numRuns: 150 },
  );
});

test("a version-2 review with a uid for a name reads as nameless; version 3 writes the name empty", () => {
  const hex = (n: number) => n.toString(16).padStart(16, "0");
  const r = review(
    {
      top: { uid: LARGE_ORG, name: "acme" },
      groups: [{ uid: LARGE_ORG, name: "acme" }],
      identities: [],
      roles: [DEPLOYER],
      // A person known by its binding alone, without a name.
      bindings: [
        {
          uid: `${LARGE_ORG}/${hex(9)}`,
          group: { uid: LARGE_ORG },
          identity: { uid: "f".repeat(40) },
          role: DEPLOYER,
        },
      ],
      caller: undefined,
      partial: [],
      calls: 0,
    } as unknown as Parameters<typeof review>[0],
    { now: NOW },
  );
  expect(r.formatVersion).toBe(3);
  expect(r.identities).toEqual([expect.objectContaining({ uid: "f".repeat(40), name: "" })]);
  const v2 = { ...r, formatVersion: 2, identities: r.identities.map((i) => ({ ...i, name: i.uid })) };
  const read = readPreviousReview(JSON.stringify(v2), "v2.json", LARGE_ORG);
  expect(read.identities.map((i) => i.name)).toEqual([""]);
  expect(changesBetween(read, r).identities).toEqual({ new: [], gone: [] });
});

test("the page quotes a hard name as the text does: no bidi or zero-width character raw", () => {
  const hard = "ci\u202Eexe.sh\u200B";
  const hex = (n: number) => n.toString(16).padStart(16, "0");
  const folder = { uid: `${LARGE_ORG}/${hex(1)}`, name: hard };
  const bot = { uid: `${folder.uid}/${hex(2)}`, name: hard };
  const r = review(
    {
      top: { uid: LARGE_ORG, name: "acme" },
      groups: [{ uid: LARGE_ORG, name: "acme" }, folder],
      identities: [bot],
      roles: [DEPLOYER],
      bindings: [{ uid: `${folder.uid}/${hex(3)}`, group: folder, identity: bot, role: DEPLOYER }],
      caller: undefined,
      partial: [],
      calls: 0,
    } as unknown as Parameters<typeof review>[0],
    { now: NOW },
  );
  const page = reviewHtml(r);
  expect(page).not.toMatch(/[\u202E\u200B]/);
  // The page's data (JSON in the page, drawn by its script as text) holds the name as the text writes it.
  expect(page).toContain(JSON.stringify(nameText(hard)).slice(1, -1));
  expect(reviewText(r)).toContain(`workload identity ${nameText(hard)}`);
});

test("who-can and what-can --markdown: a heading and tables, the text's words", () => {
  const data = accessData({ ...oneBinding, names: ["team|<b>x</b>"] });
  const r = review(data, { now: NOW });
  const team = data.groups[1]!.uid;
  const workload = data.identities[0]!.uid;
  const who = whoCanMarkdown("CAP_REPO_LIST", team, whoCan(data, "CAP_REPO_LIST", team), r);
  const what = whatCanMarkdown(workload, whatCan(r, workload), r);
  for (const text of [who, what]) {
    const tokens = md.parse(text, {});
    expect(tokens.filter((t) => t.type === "heading_open")).toHaveLength(1);
    expect(tokens.some((t) => t.type === "table_open")).toBe(true);
    // A name is text: no markup of its own, the table not broken.
    expect(tokens.flatMap((t) => [t, ...(t.children ?? [])]).map((t) => t.type)).not.toContain("html_inline");
  }
  expect(md.render(who)).toContain(`<td>workload identity wl-0</td>`);
  expect(md.render(who)).toContain(`folder ${escapeHtml(nameText("team|<b>x</b>"))}`);
  expect(md.render(what)).toContain(`<td>role role-0</td>`);
});

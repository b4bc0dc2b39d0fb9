/**
 * The access page's data (commands/access/page-data.ts) and the page that embeds it (html.ts), on random
 * organizations built as the access tools read them (no emulator: the property runs hundreds of them). The page says
 * each binding once, where it is bound; expanding those bindings over the tree ("on its group and every group below")
 * must give back exactly the review's grants, worked out by the access model. The browser behaviour is
 * test/e2e/access-review.e2e.test.ts.
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { allGrants, review, type Review } from "../../commands/access/review";
import { pageData, summaryOf, type PageData } from "../../commands/access/page-data";
import { byName, nameText } from "../../sdk/words";
import { reviewHtml } from "../../commands/access/html";
import { escapeHtml } from "../../commands/access/html-text";
import { PAGE_SCRIPT } from "../../commands/access/page-script";
import { isPrivileged } from "../../sdk/access-model";
import { CAP_POOL } from "./access-fixtures";
import { accessData, emptyPlan, forEveryReview, NOW, oneBinding, plan, type Plan } from "./access-data";

/** "group identity capability" of every grant the page's bindings make: each on its group and every group below. */
function expand(d: PageData): string[] {
  const out = new Set<string>();
  d.bindings.forEach((b) => {
    const caps = d.roles[b.role]!.capabilities ?? [];
    // Bound above the tree: on all of it. On a group the caller may not list: on the groups shown under it. Otherwise
    // its group and the `below` groups that follow it in tree order.
    const first = b.elsewhere?.above ? 0 : b.group;
    const last = b.elsewhere?.above ? d.groups.length - 1 : b.group + d.groups[b.group]!.below;
    const hiddenAt = b.elsewhere?.above === false ? b.elsewhere.uid : undefined;
    for (let g = first; g <= last; g++)
      if (hiddenAt === undefined || d.groups[g]!.uid.startsWith(`${hiddenAt}/`))
        for (const c of caps)
          out.add(`${d.groups[g]!.uid} ${d.identities[b.identity]!.uid} ${d.capabilities[c]!.name}`);
  });
  return [...out].sort();
}

const isAncestor = (d: PageData, ancestor: number, g: number) => {
  for (let at = d.groups[g]!.parent; at >= 0; at = d.groups[at]!.parent) if (at === ancestor) return true;
  return false;
};

describe("the access page's data", () => {
  it("says each binding once, where it is bound, and implies exactly the model's grants", () => {
    forEveryReview(
      (data, r) => {
        const d = pageData(r);
        // Every binding once, with the names of what it refers to.
        expect(d.bindings.map((b) => b.uid).sort()).toEqual(r.bindings.map((b) => b.uid).sort());
        for (const b of r.bindings) {
          const shown = d.bindings.find((x) => x.uid === b.uid)!;
          expect(d.identities[shown.identity]!.uid).toBe(b.identity);
          expect(d.roles[shown.role]!.name).toBe(b.roleName);
          if (shown.elsewhere === undefined) expect(d.groups[shown.group]!.uid).toBe(b.group);
          else
            expect(shown.elsewhere).toEqual({
              uid: b.group,
              name: nameText(b.groupName || b.group),
              above: b.above,
            });
        }
        // Said once, they still mean what the access model says is held on each group.
        expect(expand(d)).toEqual(
          allGrants(data)
            .map((g) => `${g.group} ${g.identity} ${g.capability}`)
            .sort(),
        );
        // Each role's capability set once, privileged ones marked.
        expect(new Set(d.roles.map((x) => x.uid)).size).toBe(d.roles.length);
        for (const c of d.capabilities) expect(c.privileged).toBe(isPrivileged(c.name));
      },
      { numRuns: 300, seed: 38 },
    );
  });

  it("orders the tree by name: each group followed by its subtree, siblings by name", () => {
    fc.assert(
      fc.property(plan, (p) => {
        const r = review(accessData(p), { now: NOW });
        const d = pageData(r);
        expect(d.groups[0]!.uid).toBe(r.group.uid);
        expect(d.groups.map((g) => g.uid).sort()).toEqual(r.groups.map((g) => g.uid).sort());
        d.groups.forEach((g, i) => {
          if (i > 0) expect(g.parent).toBeLessThan(i);
          // Its `below` groups follow it, every one under it, and the next one is not.
          for (let j = i + 1; j <= i + g.below; j++) expect(isAncestor(d, i, j)).toBe(true);
          if (i + g.below + 1 < d.groups.length) expect(isAncestor(d, i, i + g.below + 1)).toBe(false);
          const children = d.groups.filter((c) => c.parent === i);
          expect([...children].sort(byName)).toEqual(children);
        });
      }),
      { numRuns: 200, seed: 38 },
    );
  });

  it("sorts names as people do, and breaks ties by uid", () => {
    const names = ["team-10", "Team-1", "team-2", "b", "team-2"].map((name, i) => ({
      name,
      uid: `u${4 - i}`,
    }));
    expect(names.sort(byName).map((x) => `${x.name} ${x.uid}`)).toEqual([
      "b u1",
      "Team-1 u3",
      "team-2 u0",
      "team-2 u2",
      "team-10 u4",
    ]);
  });

  it("summarizes what needs attention from the identities' marks", () => {
    fc.assert(
      fc.property(plan, fc.boolean(), (p, withState) => {
        const data = accessData(p);
        const states = withState
          ? [{ file: "s.json", contents: { managed: [], access: [], unreadable: [] } }]
          : [];
        const r = review(data, { now: NOW, states });
        const d = pageData(r);
        const s = summaryOf(d);
        const uids = (list: number[] | null) => list?.map((i) => d.identities[i]!.uid).sort() ?? null;
        const where = (test: (i: Review["identities"][number]) => boolean) =>
          r.identities
            .filter(test)
            .map((i) => i.uid)
            .sort();
        expect(uids(s.privilegedHolders)).toEqual(where((i) => i.privileged));
        expect(uids(s.privilegedWorkloads)).toEqual(where((i) => i.privileged && i.kind === "workload"));
        expect(uids(s.unused)).toEqual(where((i) => i.unused === true));
        expect(uids(s.unmanaged)).toEqual(withState ? where((i) => i.unmanaged === true) : null);
        // People first, then workloads, each by name.
        const kinds = d.identities.map((i) => i.kind);
        expect(kinds).toEqual([...kinds].sort());
      }),
      { numRuns: 100, seed: 38 },
    );
  });
});

describe("the access page", () => {
  const dataOf = (html: string): unknown => {
    const block = /<script type="application\/json" id="review-data">([\s\S]*?)<\/script>/.exec(html);
    return JSON.parse(block![1]!);
  };

  it("keeps every name as data: the data block ends where the page's does, whatever a name holds", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constantFrom(
            "<script>alert(1)</script>",
            "</script><script>alert(1)</script>",
            '"><img src=x onerror=alert(1)>',
            "</style><b>",
            "a&b'c",
            "\u2028<!--",
          ),
          fc.string(),
        ),
        (name) => {
          const data = accessData({ ...oneBinding, names: [name] });
          data.top.name = name;
          data.identities[0]!.name = name;
          const r = review(data, { now: NOW });
          const html = reviewHtml(r);
          // The page's own script and data block only; no tag from a name.
          expect(html.match(/<script\b/g)).toHaveLength(2);
          expect(html.match(/<\/script>/g)).toHaveLength(2);
          expect(html.match(/<style\b/g)).toHaveLength(1);
          expect(html).not.toMatch(/<img\b|<b>/);
          // The data block reads back as the page's data: no name ended it early.
          expect(dataOf(html)).toEqual(JSON.parse(JSON.stringify(pageData(r))));
          if (/<[a-z/!]/i.test(name)) expect(html).not.toContain(name);
        },
      ),
      { numRuns: 200, seed: 33 },
    );
  });

  it("runs only its own script: the policy names the script's hash, and nothing is fetched", () => {
    const r = review(accessData({ ...emptyPlan, parents: [-1] }), { now: NOW });
    const html = reviewHtml(r);
    const hash = createHash("sha256").update(PAGE_SCRIPT).digest("base64");
    expect(html).toContain(`script-src 'sha256-${hash}'`);
    expect(html).toContain(`default-src 'none'`);
    expect(html).toContain(`<script>${PAGE_SCRIPT}</script>`);
    expect(html).not.toMatch(/<link|\ssrc=|@import|url\(|https?:\/\//);
  });

  it("is built from the bindings: its size grows with them, not with the grants they imply", () => {
    // 200 folders under one owner-like binding on the organization: 200 times its capabilities as grants.
    const folders = 200;
    const p: Plan = {
      ...emptyPlan,
      parents: Array.from({ length: folders }, () => -1),
      names: Array.from({ length: folders }, (_, i) => `team-${i}`),
      workloads: [0],
      roles: [[...CAP_POOL]],
      bindings: [{ identity: 0, role: 0, group: 0 }],
    };
    const data = accessData(p);
    const r = review(data, { now: NOW });
    expect(allGrants(data).length).toBe((folders + 1) * CAP_POOL.length);
    const html = reviewHtml(r);
    // One mention of each capability (the role's set, once) however many groups it is held on.
    for (const c of CAP_POOL) expect(html.split(c).length - 1).toBe(1);
  });

  it("shows what changed since an earlier review under the summary, before the filters, names escaped", () => {
    const hostile = "1 new binding <b>";
    const data = accessData({ ...oneBinding, names: [hostile] });
    // The earlier review: the same group, before the binding was made.
    const before = { ...(JSON.parse(JSON.stringify(review(data, { now: NOW }))) as Review), bindings: [] };
    const html = reviewHtml(review(data, { now: NOW, since: before }));
    const at = (s: string) => html.indexOf(s);
    expect(at('<section class="changes"')).toBeGreaterThan(at("What needs attention"));
    expect(at('<section class="changes"')).toBeLessThan(at('class="filters"'));
    expect(html.slice(at('<section class="changes"'), at('class="filters"'))).toContain(escapeHtml(hostile));
    expect(html).not.toContain("<b>");
  });
});

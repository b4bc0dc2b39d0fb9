/**
 * The review's outputs say each grant once, where it is bound, and still mean exactly what the access model says:
 * on random organizations built as the access tools read them (./access-data: no emulator, so a property runs
 * hundreds), the JSON's bindings, the CSV's rows and the text's tree are each expanded over the groups ("on its group
 * and every group below") with the roles' capabilities they give once, and must give back exactly the model's grants
 * (`allGrants`, `grantsOn` per group), no more and no fewer. What-can's bindings expand to what the model says the
 * identity holds. With stacks given, each binding names what manages it in every output.
 */
import fc from "fast-check";
import {
  BINDINGS_CSV_COLUMNS,
  GRANTS_CSV_COLUMNS,
  bindingsCsv,
  grantsCsv,
} from "../../commands/access/review-csv";
import { namesOf } from "../../commands/access/review-names";
import { reviewText, whatCanText } from "../../commands/access/review-text";
import { pageData } from "../../commands/access/page-data";
import { bindingFacts, type AccessData } from "../../commands/access/read";
import { allGrants, review, whatCan, type Review } from "../../commands/access/review";
import { reviewMarkdown } from "../../commands/access/review-markdown";
import type { StateContents } from "../../commands/states";
import { isAtOrBelow, isPrivileged } from "../../sdk/access-model";
import { mdText } from "../../commands/markdown";
import { resourceText } from "../../sdk/words";
import { accessData, forEveryReview, NOW, oneBinding, plan } from "./access-data";

/** "group identity capability" → the uids of the bindings granting it, as the model says (expanded, sorted). */
function modelGrants(data: AccessData, identity?: string): Map<string, string[]> {
  return new Map(
    allGrants(data, identity).map((g) => [
      `${g.group} ${g.identity} ${g.capability}`,
      g.through.map((t) => t.binding).sort(),
    ]),
  );
}

/** A binding said once, as an output says it: where it is bound, who, which role. */
interface SaidOnce {
  uid: string;
  group: string;
  identity: string;
  role: string;
}

/**
 * The grants `bindings` imply on the review's groups: each on the groups of the review at or below the group it is
 * bound on, with its role's capabilities as `capabilities` gives them.
 */
function expand(
  bindings: readonly SaidOnce[],
  groups: readonly string[],
  capabilities: (role: string) => readonly string[],
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const b of bindings)
    for (const group of groups.filter((g) => isAtOrBelow(g, b.group)))
      for (const c of capabilities(b.role)) {
        const key = `${group} ${b.identity} ${c}`;
        out.set(key, [...(out.get(key) ?? []), b.uid].sort());
      }
  return out;
}

const sorted = (m: Map<string, string[]>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1));

/** The CSV's rows as records by column (the fields hold no comma, quote or line break here). */
function csvRecords<C extends string>(text: string, columns: readonly C[]): Record<C, string>[] {
  const [header, ...rows] = text.trimEnd().split("\r\n");
  expect(header!.split(",")).toEqual([...columns]);
  return rows.map((row) => {
    const cells = row.split(",");
    expect(cells).toHaveLength(columns.length);
    return Object.fromEntries(columns.map((c, i) => [c, cells[i]!])) as Record<C, string>;
  });
}

/** A state that manages the bindings `managed` (a RoleBinding resource each), named `stack`. */
function stateOf(data: AccessData, managed: (index: number) => boolean, stack: string): StateContents {
  return {
    managed: data.bindings
      .map(bindingFacts)
      .filter((_, i) => managed(i))
      .map((b) => ({
        kind: "roleBinding" as const,
        token: "platform:iam:RoleBinding",
        uid: b.uid,
        urn: `urn:pulumi:prod::p::platform:iam:RoleBinding::rb-${b.uid.slice(-4)}`,
        state: stack,
      })),
    access: [],
    unreadable: [],
  };
}

describe("the review says each grant once and means the model's grants", () => {
  it("JSON: the bindings, each with its groups below and its role's capabilities once, expand to the model's grants", () => {
    fc.assert(
      fc.property(plan, (p) => {
        const data = accessData(p);
        const r = JSON.parse(JSON.stringify(review(data, { now: NOW }))) as Review;
        expect(r).not.toHaveProperty("grants");
        const groups = r.groups.map((g) => g.uid);
        const roles = new Map(r.roles.map((role) => [role.uid, role.capabilities]));
        const said = expand(r.bindings, groups, (role) => roles.get(role) ?? []);
        expect(sorted(said)).toEqual(sorted(modelGrants(data)));
        for (const b of r.bindings) {
          expect(b.below).toBe(groups.filter((g) => g !== b.group && isAtOrBelow(g, b.group)).length);
          expect(b.above).toBe(b.group !== r.group.uid && isAtOrBelow(r.group.uid, b.group));
        }
        // Each role once.
        expect(new Set(r.roles.map((role) => role.uid)).size).toBe(r.roles.length);
        // The marks: who holds anything, and who a privileged capability, as the model's grants say.
        const grants = allGrants(data);
        expect(r.identities.map((i) => i.uid).sort()).toEqual(
          [...new Set(grants.map((g) => g.identity))].sort(),
        );
        expect(
          r.identities
            .filter((i) => i.privileged)
            .map((i) => i.uid)
            .sort(),
        ).toEqual([...new Set(grants.filter((g) => g.privileged).map((g) => g.identity))].sort());
        // Expanded on request: exactly the model's grants.
        const expanded = review(data, { now: NOW, expand: true }).grants!;
        expect(expanded).toEqual(grants);
      }),
      { numRuns: 300, seed: 38 },
    );
  });

  it("CSV: one row per binding, which expands to the model's grants; expanded, one row per grant and binding", () => {
    // Names here hold no comma or quote, so a row splits on commas.
    forEveryReview(
      (data, r) => {
        const rows = csvRecords(bindingsCsv(r.bindings, r), BINDINGS_CSV_COLUMNS);
        expect(rows.map((row) => row.binding)).toEqual(r.bindings.map((b) => b.uid));
        const said = expand(
          rows.map((row) => ({ uid: row.binding, group: row.group, identity: row.identity, role: row.role })),
          r.groups.map((g) => g.uid),
          (role) =>
            rows
              .find((row) => row.role === role)!
              .capabilities.split(" ")
              .filter((c) => c !== ""),
        );
        expect(sorted(said)).toEqual(sorted(modelGrants(data)));
        const groups = new Set(r.groups.map((g) => g.uid));
        for (const row of rows) {
          const b = r.bindings.find((x) => x.uid === row.binding)!;
          expect([row.groups_below, row.bound_above]).toEqual([String(b.below), String(b.above)]);
          expect(row.privileged_capabilities.split(" ").filter((c) => c !== "")).toEqual(
            row.capabilities.split(" ").filter(isPrivileged),
          );
          // Not managed or unmanaged: no stack was given.
          expect([row.managed, row.managed_by]).toEqual(["", ""]);
          if (!b.above && !groups.has(b.group)) expect(row.group_name).toBe(b.groupName);
        }
        const expanded = csvRecords(grantsCsv(allGrants(data), r), GRANTS_CSV_COLUMNS);
        const perGrant = new Map<string, string[]>();
        for (const row of expanded) {
          const key = `${row.group} ${row.identity} ${row.capability}`;
          perGrant.set(key, [...(perGrant.get(key) ?? []), row.binding].sort());
        }
        expect(sorted(perGrant)).toEqual(sorted(modelGrants(data)));
      },
      { numRuns: 200, seed: 38 },
    );
  });

  it("text: the tree of bindings and the roles said once expand to the model's grants", () => {
    forEveryReview(
      (data, r) => {
        const text = reviewText(r);
        const names = namesOf(r);
        const back = <T extends string>(uids: Iterable<T>, show: (uid: T) => string) => {
          const map = new Map<string, T>();
          for (const uid of uids) map.set(show(uid), uid);
          return map;
        };
        const groupUids = [...r.groups.map((g) => g.uid), ...r.bindings.map((b) => b.group)];
        const groupOf = back(groupUids, (uid) => names.group(uid));
        const identityOf = back(
          r.bindings.map((b) => b.identity),
          (uid) => names.identity(uid),
        );
        const roleOf = back(
          r.bindings.map((b) => b.role),
          (uid) => names.role(uid),
        );
        const lines = text.split("\n");
        // The roles, each once with its capabilities.
        const rolesAt = lines.findIndex((l) => l.startsWith("roles ("));
        const capabilities = new Map<string, string[]>();
        for (const line of lines.slice(rolesAt + 1).filter((l) => l !== "")) {
          const match = /^ {2}(.+): (.*)$/.exec(line)!;
          const role = roleOf.get(match[1]!)!;
          expect(capabilities.has(role)).toBe(false);
          capabilities.set(
            role,
            match[2] === "none" ? [] : match[2]!.split(" ").map((c) => c.replace(/\*$/, "")),
          );
        }
        // The tree: a group's line ends in ":" (bindings on it) or says nothing is bound there; a binding's line
        // names the identity and the role, and where it is bound when not on the group above it.
        const treeAt = lines.findIndex((l) => l.startsWith("role bindings ("));
        const path: string[] = [];
        const said: SaidOnce[] = [];
        for (const line of lines.slice(treeAt + 1, lines.indexOf("", treeAt))) {
          if (line.startsWith("  (")) continue; // the groups not shown, counted
          const depth = (line.length - line.trimStart().length) / 2 - 1;
          const content = line.trim();
          const heading = /^(.+?)(?: and the \d+ folders? under it)?:$|^(.+) \(nothing bound here\)$/.exec(
            content,
          );
          if (heading !== null) {
            path.splice(depth);
            path.push(groupOf.get(heading[1] ?? heading[2]!)!);
            continue;
          }
          const binding = /^(.+?): (.+?)(?:, bound on (.+?) (?:above this review|below, which .*))?$/.exec(
            content,
          )!;
          said.push({
            uid: `line ${said.length}`,
            identity: identityOf.get(binding[1]!)!,
            role: roleOf.get(binding[2]!)!,
            group: binding[3] !== undefined ? groupOf.get(binding[3])! : path[depth - 1]!,
          });
        }
        expect(said).toHaveLength(r.bindings.length);
        const expanded = expand(
          said,
          r.groups.map((g) => g.uid),
          (role) => capabilities.get(role) ?? [],
        );
        const model = modelGrants(data);
        expect([...expanded.keys()].sort()).toEqual([...model.keys()].sort());
        // Each binding once, under its group: the same bindings (by who, role and where) as the review's.
        const key = (b: SaidOnce) => `${b.identity} ${b.role} ${b.group}`;
        expect(said.map(key).sort()).toEqual(r.bindings.map(key).sort());
      },
      { numRuns: 300, seed: 38 },
    );
  });

  it("what-can: the identity's bindings expand to what the model says it holds", () => {
    fc.assert(
      fc.property(plan, fc.nat(), (p, pick) => {
        const data = accessData(p);
        const r = review(data, { now: NOW });
        const candidates = [...new Set(data.bindings.map((b) => b.identity!.uid))];
        if (candidates.length === 0) return;
        const identity = candidates[pick % candidates.length]!;
        const bindings = whatCan(r, identity);
        const roles = new Map(r.roles.map((role) => [role.uid, role.capabilities]));
        const said = expand(
          bindings,
          r.groups.map((g) => g.uid),
          (role) => roles.get(role) ?? [],
        );
        expect(sorted(said)).toEqual(sorted(modelGrants(data, identity)));
        // The text: one line per binding, each role's capabilities once.
        const lines = whatCanText(identity, bindings, r).split("\n");
        expect(lines.filter((l) => /^ {2}on .*, through role /.test(l))).toHaveLength(bindings.length);
        expect(lines.filter((l) => l.startsWith("  role "))).toHaveLength(
          new Set(bindings.map((b) => b.role)).size,
        );
      }),
      { numRuns: 200, seed: 38 },
    );
  });
});

describe("what manages each binding, in every output", () => {
  it("JSON, text, CSV, Markdown and the page name the stack and resource of each binding, or no stack", () => {
    fc.assert(
      fc.property(plan, fc.func(fc.boolean()), (p, managedAt) => {
        const data = accessData(p);
        const managed = (i: number) => managedAt(i);
        const stack = "organization/platform/prod";
        const r = review(data, {
          now: NOW,
          states: [{ file: stack, contents: stateOf(data, managed, stack) }],
        });
        const isManaged = new Set(data.bindings.filter((_, i) => managed(i)).map((b) => b.uid));
        const resource = (uid: string) => `rb-${uid.slice(-4)}`;
        for (const b of r.bindings)
          expect(b.managedBy).toEqual(
            isManaged.has(b.uid)
              ? [
                  {
                    stack,
                    urn: expect.stringMatching(new RegExp(`::${resource(b.uid)}$`)),
                    type: expect.any(String),
                  },
                ]
              : [],
          );
        // An identity is unmanaged when none of its bindings is managed (no state declares identities here).
        for (const i of [...r.identities, ...r.withoutAccess])
          expect([i.uid, i.unmanaged]).toEqual([
            i.uid,
            !r.bindings.some((b) => b.identity === i.uid && isManaged.has(b.uid)),
          ]);
        // A program's resource is written as one (sdk/words), its logical name quoted, never bare.
        const written = (uid: string) => resourceText("platform:iam:RoleBinding", resource(uid));
        const words = (uid: string) =>
          isManaged.has(uid) ? `managed by ${stack}: ${written(uid)}` : "no stack";
        // The text: each binding's line says it.
        const text = reviewText(r);
        const tree = text.slice(text.indexOf("\nrole bindings ("), text.indexOf("\nroles ("));
        const bindingLines = tree.split("\n").filter((l) => / \[(managed by|no stack)/.test(l));
        expect(bindingLines).toHaveLength(r.bindings.length);
        expect(bindingLines.filter((l) => l.endsWith("[no stack]"))).toHaveLength(
          r.bindings.filter((b) => !isManaged.has(b.uid)).length,
        );
        for (const uid of isManaged)
          expect(bindingLines.filter((l) => l.endsWith(` [${words(uid)}]`))).toHaveLength(1);
        // The CSV: a column each.
        const rows = csvRecords(bindingsCsv(r.bindings, r), BINDINGS_CSV_COLUMNS);
        for (const row of rows)
          expect([row.managed, row.managed_by]).toEqual(
            isManaged.has(row.binding) ? ["true", `${stack}: ${resource(row.binding)}`] : ["false", ""],
          );
        // Markdown: a column, in the bindings table.
        const markdown = reviewMarkdown(r);
        const table = markdown.slice(markdown.indexOf("## Bindings"), markdown.indexOf("## Roles"));
        expect(table).toContain("| managed by |");
        expect(table.split("\n").filter((l) => l.endsWith("| no stack |"))).toHaveLength(
          r.bindings.filter((b) => !isManaged.has(b.uid)).length,
        );
        for (const uid of isManaged)
          expect(
            table
              .split("\n")
              .filter((l) => l.endsWith(`| managed by ${mdText(stack)}: ${mdText(written(uid))} |`)),
          ).toHaveLength(1);
        // The page's data: the stack once, each binding's resource.
        const d = pageData(r);
        for (const b of d.bindings)
          expect(
            b.managedBy!.map((m) => `managed by ${d.stacks[m.stack]}: ${m.resource}`).join("") || "no stack",
          ).toBe(words(b.uid));
        expect(d.stacks).toEqual(isManaged.size > 0 ? [stack] : []);
      }),
      { numRuns: 100, seed: 38 },
    );
  });

  it("without stacks, no output says anything about what manages a binding", () => {
    const data = accessData({ ...oneBinding, people: 1 });
    const r = review(data, { now: NOW });
    expect(r.bindings.map((b) => b.managedBy)).toEqual([null]);
    expect(reviewText(r)).not.toMatch(/no stack\]|managed by/);
    expect(reviewMarkdown(r)).not.toContain("managed by");
    expect(pageData(r).bindings.map((b) => b.managedBy)).toEqual([null]);
  });
});

/**
 * A role the reader cannot know by its name (one the update makes or edits) is said once with what it holds: every
 * capability where the list is short (sdk/words LISTED_CAPABILITIES), else its count with the privileged ones named;
 * a role the reader knows (built-in, or unchanged) stays said by its name and size. Checked where a plan is read:
 * the access plan (commands/access/plan-format: the policy pack and `platform-access plan`) and the provider's impact
 * lines (provider/core/access-words: preview and `up`), on the example and over generated plans (fast-check,
 * fixed seed).
 */
import fc from "fast-check";
import { planAccess, UNKNOWN, NO_ORGANIZATION, type PlannedResource } from "../../commands/access/plan";
import { planMarkdown, planText } from "../../commands/access/plan-format";
import { describeImpact, type ImpactLine } from "../../provider/core/access-words";
import { BUILTIN_ROLES } from "../../emulator/builtin-roles";
import { isPrivileged } from "../../sdk/access-model";
import { LISTED_CAPABILITIES, Names } from "../../sdk/words";

const ORG = "a".repeat(40);
const GITHUB = "https://token.actions.githubusercontent.com";
const editor = BUILTIN_ROLES.find((r) => r.name === "editor")!;
const WITH_BUILTINS = { ...NO_ORGANIZATION, roles: BUILTIN_ROLES.map((r) => ({ ...r })) };

const deps = (entries: Record<string, string>) =>
  new Map(Object.entries(entries).map(([field, key]) => [field, [key]]));

const folder = (name: string): PlannedResource => ({
  key: `urn:g:${name}`,
  name,
  kind: "Group",
  op: "create",
  news: { parentUid: ORG, name },
});
const identity = (name: string): PlannedResource => ({
  key: `urn:i:${name}`,
  name,
  kind: "Identity",
  op: "create",
  news: { parentUid: ORG, name, claimMatch: { issuer: GITHUB, subject: `repo:a/${name}:x` } },
});
const role = (name: string, capabilities: string[]): PlannedResource => ({
  key: `urn:r:${name}`,
  name,
  kind: "Role",
  op: "create",
  news: { parentUid: ORG, name, capabilities },
});
/** A binding of the plan's identity `who` to `roleOf` (a role of the plan, or a known uid) on the plan's folder. */
const binding = (name: string, who: string, on: string, roleOf: { plan: string } | { uid: string }) => ({
  key: `urn:b:${name}`,
  name,
  kind: "RoleBinding" as const,
  op: "create" as const,
  news: { groupUid: UNKNOWN, identityUid: UNKNOWN, roleUid: "uid" in roleOf ? roleOf.uid : UNKNOWN },
  dependencies: deps({
    groupUid: `urn:g:${on}`,
    identityUid: `urn:i:${who}`,
    ...("plan" in roleOf ? { roleUid: `urn:r:${roleOf.plan}` } : {}),
  }),
});

describe("the access plan", () => {
  it("says the issue's new role with both its capabilities, where the plan is read", () => {
    const plan = planAccess([
      folder("payments"),
      identity("payments-ci"),
      role("payments-shipper", ["CAP_TAG_LIST", "CAP_REPO_LIST"]),
      binding("ship", "payments-ci", "payments", { plan: "payments-shipper" }),
    ]);
    expect(planText(plan)[1]).toBe(
      "  workload identity payments-ci (new) becomes role payments-shipper (new) (2 capabilities: CAP_REPO_LIST, " +
        'CAP_TAG_LIST) on folder payments (new), through RoleBinding "ship"',
    );
    expect(planMarkdown(plan)).toContain(
      "becomes role payments\\-shipper (new) (2 capabilities: `CAP_REPO_LIST`, `CAP_TAG_LIST`)",
    );
  });

  it("says a known role by its name and size, and a long new one by its count and privileged capabilities", () => {
    const long = [...editor.capabilities].slice(0, LISTED_CAPABILITIES + 1);
    const privileged = [...long].sort().filter(isPrivileged);
    const plan = planAccess(
      [
        folder("apps"),
        identity("builder"),
        identity("big"),
        role("wide", long),
        binding("b1", "builder", "apps", { uid: editor.uid }),
        binding("b2", "big", "apps", { plan: "wide" }),
      ],
      WITH_BUILTINS,
    );
    const text = planText(plan).join("\n");
    expect(text).toContain(`becomes built-in role editor (${editor.capabilities.length} capabilities`);
    expect(text).not.toMatch(/built-in role editor \(\d+ capabilities: /);
    expect(text).toContain(
      `becomes role wide (new) (${long.length} capabilities` +
        (privileged.length === 0 ? ")" : `, ${privileged.length} privileged: ${privileged.join(", ")})`),
    );
  });

  it("says a new role's capabilities once, however many identities it is bound to (fast-check)", () => {
    const CAPS = ["CAP_REPO_LIST", "CAP_TAG_LIST", "CAP_ADVISORIES_LIST", "CAP_IAM_ROLE_BINDINGS_CREATE"];
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...CAPS), { minLength: 1, maxLength: CAPS.length }),
        fc.array(fc.record({ who: fc.nat(5), on: fc.nat(3), builtin: fc.boolean() }), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.boolean(),
        (caps, bindings, markdown) => {
          const plan = planAccess(
            [
              ...[0, 1, 2, 3].map((i) => folder(`f${i}`)),
              ...[0, 1, 2, 3, 4, 5].map((i) => identity(`i${i}`)),
              role("fresh", caps),
              ...bindings.map((b, n) =>
                binding(
                  `b${n}`,
                  `i${b.who}`,
                  `f${b.on}`,
                  b.builtin ? { uid: editor.uid } : { plan: "fresh" },
                ),
              ),
            ],
            WITH_BUILTINS,
          );
          const out = markdown ? planMarkdown(plan) : planText(plan).join("\n");
          const mentioned = plan.changes.some((c) => c.roles.some((r) => r.name === "fresh"));
          const list = [...caps].sort();
          const listed = list
            .map((c) => (markdown ? `\`${c}\`` : c) + (isPrivileged(c) ? " (privileged)" : ""))
            .join(", ");
          const size = list.length === 1 ? "1 capability" : `${list.length} capabilities`;
          const withHoldings = `role fresh (new) (${size}: ${listed})`;
          expect(out.split(withHoldings).length - 1).toBe(mentioned ? 1 : 0);
          expect(out).not.toMatch(/built-in role editor \(\d+ capabilities: /);
        },
      ),
      { seed: 50, numRuns: 150 },
    );
  });
});

describe("the provider's impact lines", () => {
  const FOLDER = `${ORG}/00000000000000f1`;
  const ROLE = `${ORG}/00000000000000r1`;
  const names = new Names()
    .set("group", FOLDER, "payments")
    .set("role", ROLE, "payments-shipper")
    .set("role", editor.uid, "editor");
  const line = (who: string, roleUid: string, madeRoles?: ImpactLine["madeRoles"]): ImpactLine => {
    const capabilities =
      roleUid === ROLE ? ["CAP_REPO_LIST", "CAP_TAG_LIST"] : [...editor.capabilities].sort();
    names.set("identity", `${ORG}/${who}`, who);
    return {
      identity: `${ORG}/${who}`,
      group: FOLDER,
      inheritedBy: 0,
      gained: capabilities,
      lost: [],
      roles: [roleUid],
      wholeRoles: [{ change: "gained", role: roleUid, capabilities }],
      rest: { gained: [], lost: [] },
      ...(madeRoles === undefined ? {} : { madeRoles }),
    };
  };

  it("say a role the update made with what it holds the first time, by its size after; a built-in one by its size", () => {
    const made = [{ role: ROLE, capabilities: ["CAP_REPO_LIST", "CAP_TAG_LIST"] }];
    const lines = describeImpact(
      [line("payments-ci", ROLE, made), line("other-ci", ROLE, made), line("third-ci", editor.uid)],
      "x",
      names,
    );
    expect(lines[0]).toBe(
      "access: workload identity payments-ci becomes role payments-shipper (2 capabilities: CAP_REPO_LIST, " +
        "CAP_TAG_LIST) on folder payments (x)",
    );
    expect(lines[1]).toBe(
      "access: workload identity other-ci becomes role payments-shipper (2 capabilities) on folder payments (x)",
    );
    expect(lines[2]).toMatch(
      /^access: workload identity third-ci becomes built-in role editor \(\d+ capabilities(, \d+ privileged: [A-Z_, ]+)?\) on folder payments \(x\)$/,
    );
  });
});

/**
 * Every output a person reads writes an object the one way (sdk/words): the provider's impact and preflight lines,
 * the policy pack's access plan, `platform-access` review (text with its changes, Markdown), what-can, who-can and
 * plan (text, Markdown), and `platform-import`'s report. One organization whose objects have hostile names (an
 * organization, a folder, a workload identity, a user, a custom and a built-in role, fast-check, fixed seed): in
 * every output nothing raw that could forge or hide a line, and each object that output names written as
 * `<kind> <name>` with the name as `nameText` writes it, never raw. An output that writes a name its own way (raw,
 * or escaped by a rule of its own) fails here.
 */
import fc from "fast-check";
import MarkdownIt from "markdown-it";
import type { StackValidationPolicy } from "@pulumi/policy";
import {
  describeImpact,
  describeRefusal,
  describeUnverified,
  namesOf as providerNames,
  unverifiedHeading,
} from "../../provider/core/access-words";
import type { LiveFacts } from "../../provider/core/live-facts";
import { POLICIES } from "../../policy/rules";
import { grantsText, reviewText, whatCanText } from "../../commands/access/review-text";
import { planAccess, type Organization } from "../../commands/access/plan";
import { createdBindingLines, planMarkdown, planText } from "../../commands/access/plan-format";
import { planOfPreview } from "../../commands/access/preview-json";
import type { AccessData } from "../../commands/access/read";
import { review, whatCan, whoCan, type Review } from "../../commands/access/review";
import { reviewMarkdown } from "../../commands/access/review-markdown";
import { pageData } from "../../commands/access/page-data";
import { PAGE_SCRIPT } from "../../commands/access/page-script";
import { reviewHtml } from "../../commands/access/html";
import { escapeHtml } from "../../commands/access/html-text";
import { labelsOf, reportText, type Report } from "../../commands/import/report";
import type { Found } from "../../commands/import/document";
import type { Listing } from "../../commands/import/walk";
import { LISTED_KINDS } from "../../commands/kinds";
import { IDENTITY_NOUNS, lineText, nameText, nounOf, pluralOf, type NamedKind } from "../../sdk/words";
import { HOSTILE_NAMES, RAW_DANGER } from "../hostile-names";
import { analyzerResources, previewJson, ref, type FixtureResource } from "./plan-fixtures";

const ORG = "c".repeat(40);
const FOLDER = `${ORG}/00000000000000f1`;
const WORKLOAD = `${FOLDER}/00000000000000e1`;
const USER = "d".repeat(40);
const ROLE = `${ORG}/00000000000000a1`;
const BUILTIN = "e".repeat(40);
/** The user the earlier review was read as, gone since: known by the name that review gave it. */
const FORMER = "f".repeat(40);
const CAPS = ["CAP_IAM_ROLE_BINDINGS_CREATE", "CAP_REPO_LIST"];
const VIEWER_CAPS = ["CAP_REPO_LIST", "CAP_IAM_GROUPS_LIST"];

/**
 * The objects (`former`: the caller of the earlier review), `cap`: a capability the custom role holds, and `seen`: when the workload identity was last seen, both
 * free strings from the service like a name.
 */
type Who = "org" | "folder" | "workload" | "user" | "role" | "builtin" | "former" | "cap" | "seen";
const OBJECTS: ReadonlyArray<[Who, NamedKind, string]> = [
  ["org", "group", ORG],
  ["folder", "group", FOLDER],
  ["workload", "identity", WORKLOAD],
  ["user", "identity", USER],
  ["role", "role", ROLE],
  ["builtin", "role", BUILTIN],
  ["former", "identity", FORMER],
];
type World = Record<Who, string>;

/**
 * Nine different hostile names, one per object (the same name twice would add a uid to tell them apart), one for a
 * capability and one for a time.
 */
const worlds: fc.Arbitrary<World> = fc
  .shuffledSubarray([...HOSTILE_NAMES], { minLength: 9, maxLength: 9 })
  .map(
    ([org, folder, workload, user, role, builtin, former, cap, seen]) =>
      ({ org, folder, workload, user, role, builtin, former, cap, seen }) as World,
  );

const written = (w: World, who: Who) => {
  const [, kind, uid] = OBJECTS.find(([x]) => x === who)!;
  return `${nounOf(kind, uid)} ${nameText(w[who])}`;
};

// ---------------------------------------------------------------------------------------------------------------
// The outputs, each over the same organization.

function liveFacts(w: World): LiveFacts {
  return {
    groups: [
      { uid: ORG, name: w.org },
      { uid: FOLDER, name: w.folder },
    ],
    identities: [
      { uid: WORKLOAD, name: w.workload },
      { uid: USER, name: w.user },
    ],
    roles: [
      { uid: ROLE, name: w.role, capabilities: CAPS },
      { uid: BUILTIN, name: w.builtin, capabilities: VIEWER_CAPS },
    ],
    bindings: [],
  };
}

function impactLines(w: World): string[] {
  const names = providerNames([liveFacts(w)]);
  const line = (identity: string, group: string, role: string) => ({
    identity,
    group,
    inheritedBy: 0,
    gained: CAPS,
    lost: [],
    roles: [role],
  });
  return describeImpact(
    [line(WORKLOAD, FOLDER, ROLE), line(USER, ORG, BUILTIN)],
    'platform:iam:RoleBinding "b"',
    names,
  );
}

function preflightLines(w: World): string[] {
  const names = providerNames([liveFacts(w)]);
  const finding = {
    capability: "CAP_IAM_ROLES_UPDATE",
    group: FOLDER,
    reason: { act: "update" as const, collection: "roles" as const, uid: ROLE },
    role: BUILTIN,
  };
  return [
    describeRefusal(finding, "x", USER, names),
    describeUnverified({ ...finding, reason: { act: "use", kind: "identity", uid: WORKLOAD } }, "x", names),
    unverifiedHeading(USER, names),
  ];
}

/** The program of a first preview: the folder, the workload identity and the role, and a binding of them. */
function program(w: World): FixtureResource[] {
  return [
    { kind: "Group", name: "g", op: "create", inputs: { parentUid: ORG, name: w.folder } },
    {
      kind: "Identity",
      name: "i",
      op: "create",
      inputs: {
        parentUid: ref("g"),
        name: w.workload,
        claimMatch: { issuer: "https://i.example", subject: "s" },
      },
    },
    { kind: "Role", name: "r", op: "create", inputs: { parentUid: ORG, name: w.role, capabilities: CAPS } },
    {
      kind: "RoleBinding",
      name: "b",
      op: "create",
      inputs: { groupUid: ref("g"), identityUid: ref("i"), roleUid: ref("r") },
    },
  ];
}

function packLines(w: World): string[] {
  const rule = POLICIES.find((p) => p.name === "access-plan") as StackValidationPolicy;
  const lines: string[] = [];
  const validate = rule.validateStack as (args: unknown, report: (m: string) => void) => void;
  validate({ resources: analyzerResources(program(w), "native"), getConfig: () => ({}) }, (m) =>
    lines.push(m),
  );
  return lines;
}

function plan(w: World) {
  const organization: Organization = {
    listed: true,
    groups: [{ uid: ORG, name: w.org }],
    identities: [{ uid: USER, name: w.user }],
    roles: [{ uid: BUILTIN, name: w.builtin, capabilities: VIEWER_CAPS }],
    bindings: [],
  };
  return planAccess(planOfPreview(previewJson(program(w), "native"), "plan"), organization);
}

function accessData(w: World, roleCaps: string[]): AccessData {
  const group = (uid: string, name: string) => ({ uid, name });
  return {
    top: group(ORG, w.org),
    groups: [group(ORG, w.org), group(FOLDER, w.folder)],
    identities: [{ uid: WORKLOAD, name: w.workload, lastSeenTime: w.seen }],
    roles: [
      { uid: ROLE, name: w.role, capabilities: roleCaps },
      { uid: BUILTIN, name: w.builtin, capabilities: VIEWER_CAPS },
    ],
    bindings: [
      {
        uid: `${FOLDER}/00000000000000b1`,
        group: group(FOLDER, w.folder),
        identity: { uid: WORKLOAD, name: w.workload },
        role: { uid: ROLE, name: w.role },
      },
      {
        uid: `${ORG}/00000000000000b2`,
        group: group(ORG, w.org),
        identity: { uid: USER, name: w.user },
        role: { uid: BUILTIN, name: w.builtin },
      },
    ],
    caller: USER,
    partial: [],
    calls: 0,
  } as unknown as AccessData;
}

/**
 * The review, compared with an earlier one in which the custom role held less (so it has changes to say): it gains
 * a capability with a hostile name. The earlier one was read as a user gone since.
 */
function reviewed(w: World) {
  const before = review({ ...accessData(w, ["CAP_REPO_LIST"]), caller: FORMER }, { now: new Date(0) });
  const since = { ...JSON.parse(JSON.stringify(before)), callerName: w.former } as Review;
  const data = accessData(w, [...CAPS, w.cap]);
  const r = review(data, { now: new Date(1000), since });
  return { r, data };
}

function reportLines(w: World): string {
  const found = (kind: Found["kind"], uid: string, name: string, group: string | undefined): Found =>
    ({ kind, uid, base: name, outputName: name, group, strings: [] }) as unknown as Found;
  const binding = {
    kind: "roleBinding",
    uid: `${FOLDER}/00000000000000b1`,
    base: "b",
    group: FOLDER,
    strings: [],
    binding: { identity: { uid: WORKLOAD, name: w.workload }, role: { uid: ROLE, name: w.role } },
  } as unknown as Found;
  const objects = [
    found("group", FOLDER, w.folder, ORG),
    found("identity", WORKLOAD, w.workload, FOLDER),
    found("role", ROLE, w.role, ORG),
    binding,
  ];
  const listing = {
    top: { uid: ORG, name: w.org },
    found: objects,
    skipped: [],
    calls: 0,
  } as unknown as Listing;
  const report: Report = {
    group: { uid: ORG, name: w.org },
    states: ["state.json"],
    unreadable: [],
    calls: 0,
    coverage: Object.fromEntries(
      LISTED_KINDS.map((k) => [k, { managed: 0, total: 0 }]),
    ) as Report["coverage"],
    conflicts: [],
    unmanaged: objects.map((f) => ({ kind: f.kind, type: "t", uid: f.uid, group: f.group })),
    missing: [],
    managed: [],
    skipped: [],
  };
  return reportText(report, labelsOf(listing, objects));
}

/** What a Markdown text shows a reader: its text and code spans, a line per block. */
function renderedMarkdown(markdown: string): string {
  const tokens = new MarkdownIt({ html: true }).parse(markdown, {});
  return tokens
    .filter((t) => t.type === "inline")
    .map((t) =>
      (t.children ?? [])
        .map((c) => (c.type === "text" || c.type === "code_inline" ? c.content : ""))
        .join(""),
    )
    .join("\n");
}

/** Each output's text as a person reads it, and the objects it names. */
function outputs(w: World): Array<{ output: string; text: string; names: Who[] }> {
  const { r, data } = reviewed(w);
  const p = plan(w);
  const everyone: Who[] = ["org", "folder", "workload", "user", "role", "builtin"];
  const compared: Who[] = [...everyone, "former"];
  const planned: Who[] = ["folder", "workload", "role"];
  return [
    { output: "impact lines", text: impactLines(w).join("\n"), names: everyone },
    {
      output: "preflight",
      text: preflightLines(w).join("\n"),
      names: ["folder", "workload", "user", "role", "builtin"],
    },
    { output: "pack", text: packLines(w).join("\n"), names: planned },
    { output: "review text", text: reviewText(r), names: compared },
    { output: "review Markdown", text: renderedMarkdown(reviewMarkdown(r)), names: compared },
    {
      output: "what-can",
      text: whatCanText(WORKLOAD, whatCan(r, WORKLOAD), r),
      names: ["org", "folder", "workload", "role"],
    },
    {
      output: "who-can",
      text: grantsText("who:", whoCan(data, "CAP_REPO_LIST", FOLDER), r),
      names: ["org", "folder", "workload", "user", "role", "builtin"],
    },
    {
      output: "plan text",
      text: [...planText(p), ...createdBindingLines(p).map((b) => b.line)].join("\n"),
      names: planned,
    },
    { output: "plan Markdown", text: renderedMarkdown(planMarkdown(p)), names: planned },
    { output: "report", text: reportLines(w), names: ["org", "folder"] },
  ];
}

// ---------------------------------------------------------------------------------------------------------------

it("every output writes each object it names the one way, nothing raw (fast-check)", () => {
  fc.assert(
    fc.property(worlds, (w) => {
      // A time is our words with data in them (`lineText`), not a name: it must not be there raw either.
      const named = (Object.keys(w) as Who[]).filter((who) => who !== "seen");
      const raw = (text: string) => {
        // Take out each name as written; what is left must hold no name raw.
        let rest = text;
        for (const who of named) rest = rest.split(nameText(w[who])).join("\u0001");
        return [
          ...named.filter((who) => nameText(w[who]) !== w[who] && rest.includes(w[who])),
          ...(lineText(w.seen) !== w.seen && text.includes(w.seen) ? ["seen"] : []),
        ];
      };
      for (const { output, text, names } of outputs(w)) {
        // Line breaks are the output's own (a name's would be left raw, below); nothing else raw.
        expect([output, RAW_DANGER.exec(text.replace(/\n/g, ""))?.[0]]).toEqual([output, undefined]);
        expect([output, raw(text)]).toEqual([output, []]);
        // The report names an object itself by name alone, beside its kind and uid columns; its place, with its kind.
        const expected = (who: Who) =>
          output === "report" && who === "folder" ? nameText(w.folder) : written(w, who);
        for (const who of names)
          expect([output, who, text.includes(expected(who))]).toEqual([output, who, true]);
      }
    }),
    { seed: 20261127, numRuns: 60 },
  );
});

it("the review page calls users and workload identities what every output calls them", () => {
  const users = pluralOf(IDENTITY_NOUNS.person);
  const workloads = pluralOf(IDENTITY_NOUNS.workload);
  // The script takes the words from the data; it writes none of its own.
  expect(PAGE_SCRIPT).toContain("data.kindWords[who.kind][0]");
  expect(PAGE_SCRIPT).not.toContain('label: "');
  expect(PAGE_SCRIPT).not.toContain("}, who.kind)");
  const { r } = reviewed({
    ...Object.fromEntries(OBJECTS.map(([who]) => [who, who])),
    cap: "cap",
    seen: "seen",
  } as World);
  expect(pageData(r).kindWords).toEqual({
    person: [IDENTITY_NOUNS.person, users],
    workload: [IDENTITY_NOUNS.workload, workloads],
  });
  const page = reviewHtml(r);
  expect(page).toContain(`<option value="person">${users}</option>`);
  expect(page).toContain(`<option value="workload">${workloads}</option>`);
  expect(page).toContain(`<span class="label">${users}</span>`);
  expect(page).toContain(`<span class="label">${workloads}</span>`);
});

it("the page says whom each review was read as by name (quoted when hard, as the text), the uid only where no name is known", () => {
  fc.assert(
    fc.property(worlds, (w) => {
      const { r } = reviewed(w);
      const readAs = (page: string) =>
        /Read <time[^>]*>[^<]*<\/time> as <span title="([^"]*)">([^<]*)<\/span>/.exec(page)?.slice(1);
      expect(readAs(reviewHtml(r))).toEqual([USER, escapeHtml(nameText(w.user))]);
      // The changes say the earlier review's caller by the name that review gave.
      expect(reviewHtml(r)).toContain(`as ${IDENTITY_NOUNS.person} ${escapeHtml(nameText(w.former))}`);
      // A review read as someone it names nowhere else (not compared): by the name it gave, else by uid.
      const alone: Review = { ...r, caller: FORMER, callerName: w.former };
      delete alone.changes;
      expect(readAs(reviewHtml(alone))).toEqual([FORMER, escapeHtml(nameText(w.former))]);
      delete alone.callerName;
      expect(readAs(reviewHtml(alone))).toEqual([FORMER, FORMER]);
    }),
    { seed: 20261127, numRuns: 20 },
  );
});

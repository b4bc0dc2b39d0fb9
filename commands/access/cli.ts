#!/usr/bin/env node
/**
 * platform-access: who can do what, where, and why. Reads live data with the caller's own credentials
 * (the environment, as platform-import: PLATFORM_API_URL, PLATFORM_TOKEN, or PLATFORM_IDENTITY with
 * PLATFORM_IDENTITY_TOKEN[_FILE]; sdk/config.ts), one GET and four lists plus pages whatever the organization's size
 * (./read), and answers through the shared access model (sdk/access-model.ts).
 *
 *   platform-access review <group uid> [--backend URL] [--stacks PATTERN]... [--state FILE]...
 *                          [--unused-after 90d] [--as-of TIME] [--since PREVIOUS.json]
 *                          [--json | --csv | --markdown | --html FILE] [--expand] [--fail-on-privileged-workload]
 *                          [--fail-on-new-privileged]
 *   platform-access who-can <CAPABILITY> --on <group uid> [--json | --csv | --markdown]
 *   platform-access what-can <identity uid> [--in <group uid>] [--json | --csv | --markdown] [--expand]
 *                          (a person without --in: each organization the caller may list, read once)
 *
 * `review` and `what-can` say each grant once, where it is bound (a role binding, its group and the groups below it,
 * its role's capabilities once); `--expand` adds every (identity, capability, group) the bindings imply to the JSON,
 * and makes the CSV one row per grant (large: 760,000 grants at 10,000 folders).
 *   platform-access least-privilege --state FILE [--identity UID] [--need CAP@GROUP]... [--with-update]
 *                          [--format yaml|typescript|json]
 *   platform-access plan [--markdown] [--expand] [--offline] [FILE|-]   (the output of pulumi preview --json)
 *
 * Exit code 0; 2 when --fail-on-privileged-workload finds a privileged capability held by a workload identity or an
 * unmanaged one, or --fail-on-new-privileged a privileged capability newly held since the earlier review (for a
 * scheduled CI job); 1 on a refusal (one line on stderr, nothing written). When the caller may
 * not list everything, the output says what is left out (and stderr says it too).
 *
 * `review` marks what no stack manages, and names the stack and resource that manage each identity and binding,
 * from the stacks of a backend (--backend URL, or the engine's current one with --stacks PATTERN; read through the
 * engine by ../stacks) or from state files (--state); given none, it marks nothing. A stack the engine cannot
 * export is named on stderr.
 *
 * May import: ../../sdk (and its words), ../command, ../reading, ../stacks, ./*.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Names, lineText } from "../../sdk/words";
import { Refusal, pooled, readText, runAsMain, runCommand, type CommandIo } from "../command";
import { readSources, sourcesSaid, type RunPulumi } from "../stacks";
import { PAGE_SIZE } from "../reading";
import { readPreviousReview, newPrivileged } from "./changes";
import {
  changeLine,
  changesCsv,
  bindingsCsv,
  csvByOrganization,
  grantsCsv,
  grantsText,
  namesOf,
  reviewText,
  whatCanText,
} from "./format";
import { reviewHtml } from "./html";
import { reviewMarkdown, whatCanMarkdown, whoCanMarkdown } from "./review-markdown";
import {
  leastPrivilege,
  leastPrivilegeTypeScript,
  leastPrivilegeYaml,
  parseNeed,
  stackObjects,
} from "./least-privilege";
import { runPlan } from "./plan-command";
import { callerOf, readAccess, readOrganizations, type AccessData } from "./read";
import {
  DEFAULT_UNUSED_AFTER_DAYS,
  allGrants,
  privilegedFindings,
  review,
  whatCan,
  whoCan,
  type Grant,
  type Review,
  type ReviewedBinding,
} from "./review";

/**
 * How many organizations what-can reads at once for a person: each read is itself four lists in parallel, so a few
 * at a time keep a caller of many organizations quick without a burst of requests.
 */
const ORGANIZATIONS_AT_ONCE = 4;

const USAGE =
  "usage: platform-access review <group uid> [--backend URL] [--stacks PATTERN]... [--state FILE]... [--unused-after 90d]" +
  " [--as-of TIME] [--since PREVIOUS.json] [--json | --csv | --markdown | --html FILE] [--expand]" +
  " [--fail-on-privileged-workload] [--fail-on-new-privileged]" +
  " | platform-access who-can <CAPABILITY> --on <group uid> [--json | --csv | --markdown]" +
  " | platform-access what-can <identity uid> [--in <group uid>] [--json | --csv | --markdown] [--expand]" +
  " | platform-access least-privilege --state FILE [--identity UID] [--need CAP@GROUP]... [--with-update]" +
  " [--format yaml|typescript|json]" +
  " | platform-access plan [--markdown] [--expand] [--offline] [FILE|-]";

/**
 * What an identity holds under one group (what-can): the group read, its review, the identity's bindings there (each
 * said once where it is bound), and with --expand the grants they imply on each group.
 */
interface WhatCanAnswer {
  group: { uid: string; name: string };
  review: Review;
  bindings: ReviewedBinding[];
  grants?: Grant[];
}

function whatCanIn(data: AccessData, identity: string, expand: boolean): WhatCanAnswer {
  const r = review(data);
  return {
    group: { uid: data.top.uid, name: data.top.name },
    review: r,
    bindings: whatCan(r, identity),
    ...(expand ? { grants: allGrants(data, identity) } : {}),
  };
}

/** The identity's name as the first answer that knows one gives it (each answer's names built only until then). */
function nameIn(answers: readonly WhatCanAnswer[], identity: string): string | undefined {
  for (const a of answers) {
    const name = namesOf(a.review).nameOf("identity", identity);
    if (name !== undefined) return name;
  }
  return undefined;
}

/**
 * what-can's answers as text, JSON or CSV, each naming its group by name: one answer (`--in`, or a workload's
 * organization) as `{identity, identityName, group, groupName, partial, bindings, roles}` (and `grants` when
 * expanded); a person's, one per organization the caller sees, as `{identity, organizations: [...]}` and CSV rows
 * that start with the organization.
 */
function writeWhatCan(
  io: Io,
  format: Format,
  identity: string,
  answers: WhatCanAnswer[],
  perOrganization: boolean,
): void {
  const json = (a: WhatCanAnswer) => {
    const used = new Set(a.bindings.map((b) => b.role));
    return {
      group: a.group.uid,
      groupName: a.group.name,
      partial: a.review.partial,
      bindings: a.bindings,
      roles: a.review.roles.filter((role) => used.has(role.uid)),
      ...(a.grants !== undefined ? { grants: a.grants } : {}),
    };
  };
  const text = (a: WhatCanAnswer) =>
    format === "markdown"
      ? whatCanMarkdown(identity, a.bindings, a.review)
      : whatCanText(identity, a.bindings, a.review);
  const csvOf = (a: WhatCanAnswer) =>
    a.grants !== undefined ? grantsCsv(a.grants, a.review) : bindingsCsv(a.bindings, a.review);
  const identityName = nameIn(answers, identity);
  const named = { identity, ...(identityName !== undefined ? { identityName } : {}) };
  if (!perOrganization) {
    const [a] = answers as [WhatCanAnswer];
    if (format === "json") io.stdout(`${JSON.stringify({ ...named, ...json(a) }, null, 2)}\n`);
    else if (format === "csv") io.stdout(csvOf(a));
    else io.stdout(text(a));
  } else if (format === "json")
    io.stdout(`${JSON.stringify({ ...named, organizations: answers.map(json) }, null, 2)}\n`);
  else if (format === "csv")
    io.stdout(
      csvByOrganization(
        answers.map((a) => ({
          organization: a.group,
          bindings: a.bindings,
          review: a.review,
          ...(a.grants !== undefined ? { grants: a.grants } : {}),
        })),
        answers.some((a) => a.grants !== undefined),
      ),
    );
  else io.stdout(answers.map(text).join("\n"));
}

/** The exit code of --fail-on-privileged-workload and --fail-on-new-privileged when they find something. */
export const EXIT_PRIVILEGED = 2;

export interface Io extends CommandIo {
  /** How `review` runs the engine with a given environment (default the CLI on PATH). */
  engine?: (env: Record<string, string | undefined>) => RunPulumi;
}

interface Parsed {
  positional: string[];
  flags: Map<string, string[]>;
}

/** Flags of a subcommand: `allowed` maps a flag to whether it takes a value. */
function parse(argv: string[], allowed: Record<string, boolean>): Parsed {
  const positional: string[] = [];
  const flags = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--help" || arg === "-h") throw new Refusal(USAGE);
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq < 0 ? arg : arg.slice(0, eq);
    if (!Object.hasOwn(allowed, name)) throw new Refusal(`unknown option ${name}; ${USAGE}`);
    let value = "";
    if (allowed[name]) {
      value = eq < 0 ? (argv[++i] ?? "") : arg.slice(eq + 1);
      if (value === "") throw new Refusal(`${name} needs a value; ${USAGE}`);
    } else if (eq >= 0) throw new Refusal(`${name} takes no value`);
    flags.set(name, [...(flags.get(name) ?? []), value]);
  }
  return { positional, flags };
}

const one = (p: Parsed, name: string): string | undefined => {
  const values = p.flags.get(name);
  if (values !== undefined && values.length > 1) throw new Refusal(`${name} is given more than once`);
  return values?.[0];
};

/** `90d`, `12h`, `30` (days) → days. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(d|h)?$/.exec(text);
  if (match === null)
    throw new Refusal(`--unused-after is a number of days (90d) or hours (36h), not ${JSON.stringify(text)}`);
  const n = Number(match[1]);
  return match[2] === "h" ? n / 24 : n;
}

type Format = "text" | "json" | "csv" | "markdown" | "html";

/** One output format of --json, --csv (and --markdown, --html FILE for review). */
function formatOf(p: Parsed, html: boolean): Format {
  const chosen = [
    p.flags.has("--json") && "json",
    p.flags.has("--csv") && "csv",
    p.flags.has("--markdown") && "markdown",
    html && "html",
  ].filter((x): x is Format => typeof x === "string");
  if (chosen.length > 1)
    throw new Refusal(
      `choose one of --json, --csv${p.flags.has("--markdown") || html ? ", --markdown, --html" : ""}`,
    );
  return chosen[0] ?? "text";
}

/**
 * Whether --expand was given, and refused where it means nothing: it expands the JSON and the CSV only (the text,
 * Markdown and page say each grant once), and with --since the CSV is the changes, not the grants.
 */
function expandOf(p: Parsed, format: Format): boolean {
  if (!p.flags.has("--expand")) return false;
  if (format !== "json" && format !== "csv")
    throw new Refusal(
      "--expand takes --json or --csv: the text, Markdown and page say each grant once, where it is bound",
    );
  if (format === "csv" && p.flags.has("--since"))
    throw new Refusal(
      "--expand with --since: the CSV is then the changes; run without --since for the grants",
    );
  return true;
}

/** Writes the whole file or nothing: a temporary file beside it, renamed over it. */
function writeWhole(file: string, text: string): void {
  const tmp = path.join(path.dirname(path.resolve(file)), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

function readStates(files: string[]) {
  return files.map((file) => ({ file, text: readText(file) }));
}

function warnPartial(r: Review, io: Io): void {
  for (const p of r.partial) io.stderr(`partial: ${lineText(p)}`);
}

const CAPABILITY = /^CAP_[A-Z0-9_]+$/;

/** Runs the command; returns the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  return runCommand("platform-access", io, async (connect) => {
    const read = async (group: string) => {
      const started = Date.now();
      const caller = callerOf(io.env);
      const data = await readAccess(connect(), group, {
        ...(caller !== undefined ? { caller } : {}),
        progress: (line) => io.stderr(line),
      });
      const top = new Names().add("group", data.top.uid, data.top.name).group(data.top.uid);
      io.stderr(`${top}: ${data.calls} API calls, ${Date.now() - started} ms`);
      return data;
    };
    /** Where a person's access is looked for: every organization the caller may list (./read readOrganizations). */
    const organizationsFor = async (identity: string) => {
      const { organizations, calls } = await readOrganizations(connect(), {
        progress: (line) => io.stderr(line),
      });
      io.stderr(`organizations: ${organizations.length} (${calls} API calls)`);
      if (organizations.length === 0)
        throw new Refusal(
          `${identity} is a root-level user and the caller may list no organization: say which group with --in <group uid>`,
        );
      return organizations;
    };
    const [command, ...rest] = argv;
    if (command === "--help" || command === "-h" || command === "help") {
      io.stdout(`${USAGE.split(" | ").join("\n     | ")}\n`);
      return 0;
    }
    if (command === "review") {
      const p = parse(rest, {
        "--state": true,
        "--backend": true,
        "--stacks": true,
        "--unused-after": true,
        "--json": false,
        "--csv": false,
        "--html": true,
        "--fail-on-privileged-workload": false,
        "--as-of": true,
        "--since": true,
        "--markdown": false,
        "--fail-on-new-privileged": false,
        "--expand": false,
      });
      if (p.positional.length !== 1) throw new Refusal(`review needs one group uid; ${USAGE}`);
      const html = one(p, "--html");
      const format = formatOf(p, html !== undefined);
      const expand = expandOf(p, format);
      const unused = one(p, "--unused-after");
      const unusedAfterDays = unused === undefined ? DEFAULT_UNUSED_AFTER_DAYS : parseDuration(unused);
      const asOf = one(p, "--as-of");
      const now = asOf === undefined ? new Date() : new Date(asOf);
      if (Number.isNaN(now.getTime()))
        throw new Refusal(`--as-of is an RFC 3339 time (2026-01-31T12:00:00Z), not ${JSON.stringify(asOf)}`);
      const group = p.positional[0]!;
      const sinceFile = one(p, "--since");
      if (p.flags.has("--fail-on-new-privileged") && sinceFile === undefined)
        throw new Refusal("--fail-on-new-privileged needs --since PREVIOUS.json (an earlier review --json)");
      const since =
        sinceFile === undefined
          ? undefined
          : readPreviousReview(readStates([sinceFile])[0]!.text, sinceFile, group);
      const backend = one(p, "--backend");
      const sources = await readSources({
        files: p.flags.get("--state") ?? [],
        ...(backend !== undefined ? { backend } : {}),
        patterns: p.flags.get("--stacks") ?? [],
        env: io.env,
        ...(io.engine !== undefined ? { engine: io.engine } : {}),
      });
      for (const line of sourcesSaid(sources)) io.stderr(line);
      const states = sources.states;
      const data = await read(group);
      const r = review(data, {
        states,
        unusedAfterDays,
        now,
        expand,
        ...(since !== undefined ? { since } : {}),
      });
      warnPartial(r, io);
      if (format === "json") io.stdout(`${JSON.stringify(r, null, 2)}\n`);
      // One CSV is one table: with --since it is the changes (docs/access-review.md), else the bindings (the grants
      // when expanded).
      else if (format === "csv")
        io.stdout(
          r.changes !== undefined
            ? changesCsv(r.changes)
            : r.grants !== undefined
              ? grantsCsv(r.grants, r)
              : bindingsCsv(r.bindings, r),
        );
      else if (format === "markdown") io.stdout(reviewMarkdown(r));
      else if (format === "html") {
        writeWhole(html!, reviewHtml(r));
        io.stderr(`wrote ${html} (${r.groups.length} groups, ${r.bindings.length} role bindings)`);
      } else io.stdout(reviewText(r));
      if (p.flags.has("--fail-on-privileged-workload")) {
        const names = namesOf(r);
        const findings = privilegedFindings(r);
        for (const f of findings)
          io.stderr(
            `privileged: ${names.identity(f.uid)}${f.unmanaged === true ? " is unmanaged and" : ""} ` +
              `holds a privileged capability`,
          );
        if (findings.length > 0) return EXIT_PRIVILEGED;
      }
      if (p.flags.has("--fail-on-new-privileged") && r.changes !== undefined) {
        const found = newPrivileged(r.changes);
        const names = namesOf(r);
        for (const c of found) io.stderr(`new privileged: ${changeLine(c, names)}`);
        if (found.length > 0) return EXIT_PRIVILEGED;
      }
      return 0;
    }
    if (command === "who-can") {
      const p = parse(rest, { "--on": true, "--json": false, "--csv": false, "--markdown": false });
      const capability = p.positional[0];
      if (p.positional.length !== 1 || capability === undefined)
        throw new Refusal(`who-can needs one capability; ${USAGE}`);
      if (!CAPABILITY.test(capability))
        throw new Refusal(`${JSON.stringify(capability)} is not a capability (e.g. CAP_IAM_GROUPS_LIST)`);
      const on = one(p, "--on");
      if (on === undefined) throw new Refusal(`who-can needs --on <group uid>; ${USAGE}`);
      const format = formatOf(p, false);
      const data = await read(on);
      const r = review(data);
      warnPartial(r, io);
      const grants = whoCan(data, capability, on);
      if (format === "json")
        io.stdout(
          `${JSON.stringify({ capability, group: on, groupName: r.group.name, partial: r.partial, grants }, null, 2)}\n`,
        );
      else if (format === "csv") io.stdout(grantsCsv(grants, r));
      else if (format === "markdown") io.stdout(whoCanMarkdown(capability, on, grants, r));
      else io.stdout(grantsText(`who holds ${capability} on ${namesOf(r).group(on)}:`, grants, r));
      return 0;
    }
    if (command === "what-can") {
      const p = parse(rest, {
        "--in": true,
        "--json": false,
        "--csv": false,
        "--markdown": false,
        "--expand": false,
      });
      const identity = p.positional[0];
      if (p.positional.length !== 1 || identity === undefined)
        throw new Refusal(`what-can needs one identity uid; ${USAGE}`);
      const format = formatOf(p, false);
      const expand = expandOf(p, format);
      // A workload lives in an organization: its root is the default scope. A person belongs to none.
      const scope = one(p, "--in") ?? (identity.includes("/") ? identity.split("/")[0]! : undefined);
      const answers: WhatCanAnswer[] = [];
      if (scope !== undefined) answers.push(whatCanIn(await read(scope), identity, expand));
      else
        answers.push(
          ...(await pooled(await organizationsFor(identity), ORGANIZATIONS_AT_ONCE, async (organization) =>
            whatCanIn(await read(organization.uid), identity, expand),
          )),
        );
      for (const a of answers) warnPartial(a.review, io);
      writeWhatCan(io, format, identity, answers, scope === undefined);
      return 0;
    }
    if (command === "least-privilege") {
      const p = parse(rest, {
        "--state": true,
        "--identity": true,
        "--need": true,
        "--with-update": false,
        "--format": true,
      });
      if (p.positional.length > 0) throw new Refusal(`least-privilege takes no argument; ${USAGE}`);
      const files = p.flags.get("--state") ?? [];
      if (files.length === 0) throw new Refusal(`least-privilege needs --state FILE (pulumi stack export)`);
      const format = one(p, "--format") ?? "yaml+typescript";
      if (!["yaml", "typescript", "json", "yaml+typescript"].includes(format))
        throw new Refusal(`--format is yaml, typescript or json, not ${JSON.stringify(format)}`);
      const extra = (p.flags.get("--need") ?? []).map(parseNeed);
      const read = readStates(files).map(({ file, text }) => stackObjects(text, file));
      const objects = read.flatMap((s) => s.objects);
      if (objects.length === 0) throw new Refusal(`the state holds no resource of this package`);
      // Roles the state does not hold (built-in ones, others' custom roles): one list of the organization's.
      const roots = [...new Set(objects.map((o) => o.uid.split("/")[0]!))];
      const c = connect();
      const roles = new Map<string, string[]>();
      for (const root of roots)
        for await (const role of c.roles.list({ descendantsOf: root, pageSize: PAGE_SIZE }))
          roles.set(role.uid, role.capabilities ?? []);
      const lp = leastPrivilege(objects, {
        roleCapabilities: (uid) => roles.get(uid),
        withUpdate: p.flags.has("--with-update"),
        extra,
      });
      const identity = one(p, "--identity");
      for (const note of [...read.flatMap((s) => s.notes), ...lp.notes]) io.stderr(`note: ${lineText(note)}`);
      if (format === "json") io.stdout(`${JSON.stringify(lp, null, 2)}\n`);
      if (format === "yaml" || format === "yaml+typescript") io.stdout(leastPrivilegeYaml(lp, identity));
      if (format === "yaml+typescript") io.stdout("\n---\n\n");
      if (format === "typescript" || format === "yaml+typescript")
        io.stdout(leastPrivilegeTypeScript(lp, identity));
      return 0;
    }
    if (command === "plan") {
      const p = parse(rest, { "--markdown": false, "--offline": false, "--expand": false });
      if (p.positional.length > 1)
        throw new Refusal(`plan takes one file (or - for standard input); ${USAGE}`);
      const source = p.positional[0] ?? "-";
      return runPlan(
        {
          markdown: p.flags.has("--markdown"),
          offline: p.flags.has("--offline"),
          expand: p.flags.has("--expand"),
          source,
        },
        io,
        connect,
      );
    }
    throw new Refusal(command === undefined ? USAGE : `unknown command ${command}; ${USAGE}`);
  });
}

runAsMain(module, main);

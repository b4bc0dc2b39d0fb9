/**
 * `platform-access what-can <identity uid> [--in <group uid>]`: what the identity holds, where, and through which
 * binding: under one group (--in, or a workload identity's organization), or for a person without --in, under each
 * organization the caller may list (each read once).
 */
import type { PlatformClient } from "../../../sdk";
import { Refusal, pooled } from "../../command";
import { bindingsCsv, csvByOrganization, grantsCsv } from "../review-csv";
import { namesOf } from "../review-names";
import { whatCanText } from "../review-text";
import { readOrganizations, type AccessData } from "../read";
import { allGrants, review, whatCan, type Grant, type Review, type ReviewedBinding } from "../review";
import { expandOf, formatOf, readGroup, warnPartial, type Format, type Io, type RunCommand } from "./shared";
import { parentOf, rootOf } from "../../../sdk/uidp";

/**
 * How many organizations what-can reads at once for a person: each read is itself four lists in parallel, so a few
 * at a time keep a caller of many organizations quick without a burst of requests.
 */
const ORGANIZATIONS_AT_ONCE = 4;

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
      ? (require("../review-markdown") as typeof import("../review-markdown")).whatCanMarkdown(
          identity,
          a.bindings,
          a.review,
        )
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

/** Where a person's access is looked for: every organization the caller may list (../read readOrganizations). */
async function organizationsFor(identity: string, io: Io, connect: () => PlatformClient) {
  const { organizations, calls } = await readOrganizations(connect(), {
    progress: (line) => io.stderr(line),
  });
  io.stderr(`organizations: ${organizations.length} (${calls} API calls)`);
  if (organizations.length === 0)
    throw new Refusal(
      `${identity} is a root-level user and the caller may list no organization: say which group with --in <group uid>`,
    );
  return organizations;
}

export const run: RunCommand = async (p, io, connect) => {
  const identity = p.args[0]!;
  const format = formatOf(p);
  const expand = expandOf(p, format);
  // A workload lives in an organization: its root is the default scope. A person belongs to none.
  const scope = p.value("--in") ?? (parentOf(identity) === undefined ? undefined : rootOf(identity));
  const answers: WhatCanAnswer[] = [];
  if (scope !== undefined) answers.push(whatCanIn(await readGroup(scope, io, connect), identity, expand));
  else
    answers.push(
      ...(await pooled(
        await organizationsFor(identity, io, connect),
        ORGANIZATIONS_AT_ONCE,
        async (organization) => whatCanIn(await readGroup(organization.uid, io, connect), identity, expand),
      )),
    );
  for (const a of answers) warnPartial(a.review, io);
  writeWhatCan(io, format, identity, answers, scope === undefined);
  return 0;
};

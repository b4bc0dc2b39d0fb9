/**
 * The review as one self-contained HTML page (inline CSS and JS, no request to anything else), for someone who never
 * ran the command, at the size of a real organization: what needs attention first (privileged workload identities
 * and holders, unused and unmanaged identities, users and workload identities, each leading to its rows), then the
 * filters, then
 * the group tree ordered by name, where each role binding is said once, on the group it is bound on, "and the N
 * groups below". The tree is drawn by the page's script (./page-script) from one data block (./page-data): a group's
 * content only once it is open, so a page of 10,000 folders stays small and quick. Every name is data: HTML-escaped
 * where this module writes it, text where the script does. Kinds are said in the words every output uses
 * (../../sdk/words); the data keeps the review's values (`person`, `workload`).
 */
import { createHash } from "node:crypto";
import { IDENTITY_NOUNS, nameText, pluralOf } from "../../sdk/words";
import { pageData, summaryOf, type PageData, type PageIdentity } from "./page-data";
import { changesHtml } from "./changes-html";
import { namesOf } from "./review-names";
import { escapeHtml } from "./html-text";
import { PAGE_SCRIPT } from "./page-script";
import type { Review } from "./review";

const escape = escapeHtml;

const number = new Intl.NumberFormat("en-US");
/** "1,000 workload identities": a count of a noun, the number grouped. */
const count = (n: number, noun: string) => `${number.format(n)} ${n === 1 ? noun : pluralOf(noun)}`;

/** What the page calls users and workload identities, many of them: the data's words (./page-data). */
const plurals = (data: PageData) => ({
  users: data.kindWords.person[1],
  workloads: data.kindWords.workload[1],
});

const CSS = `
:root{--line:#d0d7de;--muted:#59636e;--red:#a40e26}
body{font:14px/1.45 system-ui,sans-serif;margin:0 1.5em 2em;color:#1b1f24;background:#fff}
h1{font-size:1.35em;margin:.7em 0 .1em}
h2{font-size:1em;margin:.7em 0 .3em}
.uid{color:var(--muted);font:12px ui-monospace,monospace}
.read{color:var(--muted);margin:0;font-size:.92em}
.partial{background:#fff4e5;border:1px solid #f0b35a;padding:.4em .8em;margin:.5em 0}
.cards{display:flex;flex-wrap:wrap;gap:.5em;list-style:none;margin:0;padding:0}
.card{border:1px solid var(--line);border-radius:6px;padding:.25em .6em;min-width:7em;max-width:17em}
.card.alert{border-color:#e5a3a9;background:#fff6f6}
.card.quiet{color:var(--muted)}
.card button{font:inherit;color:inherit;background:none;border:0;padding:0;cursor:pointer;text-align:left}
.card>button:hover .label,.names button:hover{text-decoration:underline}
.card .n{display:block;font-size:1.45em;font-weight:650;line-height:1.2}
.card.alert .n{color:var(--red)}
.names{display:block;font-size:.88em;color:var(--muted)}
.names button{color:#0b57d0}
.filters{position:sticky;top:0;z-index:1;background:#fff;display:flex;flex-wrap:wrap;gap:.35em 1.1em;align-items:center;padding:.5em 0;margin-top:.6em;border-bottom:1px solid var(--line)}
.filters label{white-space:nowrap}
.filters select{max-width:16em}
.filters #filter-capability{max-width:25em}
#visible-count{color:var(--muted);font-size:.92em}
.how{margin:.5em 0;font-size:.92em;color:var(--muted)}
.how details{display:inline}
.legend dt{font-weight:600;display:inline;color:#1b1f24}.legend dd{display:inline;margin:0 1em 0 .3em}
#tree{scroll-margin-top:4em}
#tree ul{list-style:none;margin:0;padding:0 0 0 1.3em}
#tree ul.top{padding:0}
details.group>summary{cursor:pointer;padding:.12em 0}
.gname{font-weight:600}
.meta{color:var(--muted);font-size:.88em}
#tree ul.bindings{border-left:3px solid var(--line);margin:.1em 0 .25em .35em;padding-left:.6em}
li.binding{display:grid;grid-template-columns:minmax(15em,2fr) minmax(12em,2fr) minmax(14em,2fr) minmax(10em,2fr);gap:.1em 1em;padding:.12em 0;border-bottom:1px solid #eaeef2}
.where{color:#32383f}
.managed{color:var(--muted);font-size:.92em}.managed.no-stack{color:var(--red)}
details.caps>summary{cursor:pointer}
.rname{font-weight:600}
.chips{margin:.15em 0}
.cap{display:inline-block;font:12px ui-monospace,monospace;border-radius:3px;padding:0 .35em;margin:.1em;border:1px solid #9ec5fe;background:#e7f1ff}
.cap.priv{border-color:#d1242f;color:var(--red);font-weight:600}
.cap.match{outline:2px solid #1a7f37}
.mark{display:inline-block;font-size:.78em;border-radius:8px;padding:0 .5em;margin-right:.25em;background:#eef}
.mark.privileged{background:#ffebe9;color:var(--red)}.mark.unused{background:#fff8c5}.mark.unmanaged{background:#fbefff}
button.more{margin:.2em 0 .3em 1.3em}
.none{color:var(--muted);font-style:italic}
.attention~section table{border-collapse:collapse;width:100%;margin:.2em 0}
.attention~section td,.attention~section th{border-bottom:1px solid #eaeef2;padding:.25em .5em;text-align:left;vertical-align:top}
.attention~section th{font-size:.85em;color:var(--muted)}
`;

/** The card of one question of the summary: its count leading to its rows, and the first few names. */
function card(
  label: string,
  who: number[] | null,
  preset: string,
  data: PageData,
  options: { alert?: boolean; names?: boolean; note?: string },
): string {
  if (who === null)
    return `<li class="card quiet"><span class="n">–</span><span class="label">${escape(label)}</span><span class="names">${escape(options.note ?? "")}</span></li>`;
  const cls = who.length === 0 ? "card quiet" : options.alert ? "card alert" : "card";
  const first = options.names ? who.slice(0, 4).map((i) => data.identities[i]!) : [];
  const names =
    first.length === 0
      ? options.note !== undefined
        ? `<span class="names">${escape(options.note)}</span>`
        : ""
      : `<span class="names">${first.map(nameButton).join(", ")}${who.length > first.length ? `, and ${number.format(who.length - first.length)} more` : ""}</span>`;
  return (
    `<li class="${cls}"><button type="button" data-preset="${preset}"><span class="n">${number.format(who.length)}</span>` +
    `<span class="label">${escape(label)}</span></button>${names}</li>`
  );
}

const nameButton = (i: PageIdentity) =>
  `<button type="button" data-identity="${escape(i.uid)}" title="${escape(i.uid)}">${escape(i.name)}</button>`;

/** "What needs attention": the summary, most urgent first. */
function attention(data: PageData): string {
  const s = summaryOf(data);
  const days = `no token in ${data.unusedAfterDays} days, or never`;
  const { users, workloads } = plurals(data);
  return `<section class="attention" aria-labelledby="attention"><h2 id="attention">What needs attention</h2><ul class="cards">
${card(`privileged ${workloads}`, s.privilegedWorkloads, "privileged-workloads", data, { alert: true, names: true, note: `${workloads} that can grant access` })}
${card("privileged holders", s.privilegedHolders, "privileged", data, { alert: true, names: true, note: "identities that can grant access" })}
${card(`unused ${workloads}`, s.unused, "unused", data, { alert: true, note: days })}
${card("unmanaged", s.unmanaged, "unmanaged", data, { alert: true, note: s.unmanaged === null ? "not checked: no stacks given" : "in no stack's state" })}
${card(users, s.people, "people", data, { note: "root-level identities: people" })}
${card(workloads, s.workloads, "workloads", data, { note: "under a group: CI, services" })}
</ul></section>`;
}

function filters(data: PageData): string {
  const unmanaged = data.unmanagedKnown
    ? `<label><input type="checkbox" id="filter-unmanaged"> unmanaged</label>`
    : `<label title="no stacks given (--backend, --stacks, --state): nobody is marked unmanaged"><input type="checkbox" id="filter-unmanaged" disabled> unmanaged (no stacks given)</label>`;
  const { users, workloads } = plurals(data);
  return `<div class="filters" role="search" aria-label="Filters">
<label>Find by name <input type="search" id="filter-search" placeholder="identity, role or group"></label>
<label>Identity <select id="filter-identity"><option value="">anyone</option></select></label>
<label>Capability <select id="filter-capability"><option value="">any capability</option></select></label>
<label>Who <select id="filter-kind"><option value="">${users} and ${workloads}</option><option value="person">${users}</option><option value="workload">${workloads}</option></select></label>
<label><input type="checkbox" id="filter-privileged"> privileged</label>
<label><input type="checkbox" id="filter-unused"> unused</label>
${unmanaged}
<button type="button" id="filter-clear">Clear filters</button>
<span id="visible-count" role="status" aria-live="polite"></span>
</div>`;
}

const legend = (unusedAfterDays: number) => `<dl class="legend">
<dt>binding</dt><dd>gives an identity a role on a group: the role's capabilities there and on every group below. Each is shown once, on the group it is on.</dd>
<dt>role</dt><dd>open it to see its capabilities; <span class="cap priv">red</span> ones are privileged: with them access can be granted (to itself or others).</dd>
<dt>${IDENTITY_NOUNS.person} / ${IDENTITY_NOUNS.workload}</dt><dd>a ${IDENTITY_NOUNS.person} is a root-level identity (a person); a ${IDENTITY_NOUNS.workload} is an identity under a group (CI, services).</dd>
<dt>unused</dt><dd>a ${IDENTITY_NOUNS.workload} with no token exchange in ${unusedAfterDays} days, or never.</dd>
<dt>unmanaged</dt><dd>no stack's state declares the identity or any of its bindings; each binding says which stack and resource manage it, or "no stack".</dd>
<dt>filters</dt><dd>show only the bindings that match, on the groups that hold them and the path down to them.</dd>
</dl>`;

/** The data block: JSON that no name can end early (`<` is written as its escape). */
const dataBlock = (data: PageData) =>
  `<script type="application/json" id="review-data">${JSON.stringify(data).replace(/</g, "\\u003c")}</script>`;

const SCRIPT_HASH = createHash("sha256").update(PAGE_SCRIPT).digest("base64");

/** " as <the caller's name>" (its uid where no name is known), with its uid as a tooltip; nothing when not known. */
function caller(r: Review): string {
  if (r.caller === undefined) return "";
  return ` as <span title="${escape(r.caller)}">${escape(namesOf(r).name("identity", r.caller))}</span>`;
}

/** The page. */
export function reviewHtml(r: Review): string {
  const data = pageData(r);
  const people = data.identities.filter((i) => i.kind === "person").length;
  const partial =
    r.partial.length > 0
      ? `<div class="partial"><strong>Partial:</strong> the credentials used may not list everything; what they cannot see is not shown.<ul>${r.partial.map((p) => `<li>${escape(p)}</li>`).join("")}</ul></div>`
      : "";
  const states =
    r.states.length > 0
      ? `compared with the stacks' states ${r.states.map(escape).join(", ")}`
      : "no stack state given, so nobody is marked unmanaged";
  // What changed since an earlier review (--since) comes first, under the summary.
  const changes = changesHtml(r);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${SCRIPT_HASH}'">
<title>Access review: ${escape(nameText(r.group.name))}</title><style>${CSS}</style></head><body>
<header><h1>Who can do what in ${escape(nameText(r.group.name))} <span class="uid">${escape(r.group.uid)}</span></h1>
<p class="read">${count(data.groups.length, "group")}, ${count(people, IDENTITY_NOUNS.person)} and ${count(data.identities.length - people, IDENTITY_NOUNS.workload)} with access through ${count(data.bindings.length, "role binding")} of ${count(data.roles.length, "role")}. Read <time datetime="${escape(r.at)}" title="${escape(r.at)}">${escape(r.at.slice(0, 16).replace("T", " "))} UTC</time>${caller(r)} with ${count(r.calls, "API call")}; ${states}.</p></header>
${partial}
${attention(data)}
${changes}
${filters(data)}
<div class="how">Each role binding is shown once, on the group it is bound on: it grants its role there and on every group below. <details><summary>How to read this page</summary>${legend(r.unusedAfterDays)}</details></div>
<main id="tree" aria-label="Groups, by name"></main>
<noscript><p>The group tree is drawn by the page's script; allow JavaScript to see it.</p></noscript>
${dataBlock(data)}
<script>${PAGE_SCRIPT}</script>
</body></html>
`;
}

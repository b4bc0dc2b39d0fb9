/**
 * The review page's section on what changed since an earlier review (`review --since PREVIOUS.json --html FILE`):
 * privileged changes first, each change of access once where it happens ("and the N groups under it"), with the
 * bindings it is gained or was held through; identities and groups new and gone; roles changed. A pure function of
 * the review, placed by the page at its top; it uses the page's classes (`cap`, `priv`, `mark`) and no style or
 * script of its own. Every name from the API is data: written as every output writes it (../../sdk/words: quoted
 * with escapes when hard), then HTML-escaped, as the rest of the page writes it; each object's kind in the words
 * every output uses.
 */
import { isPrivileged } from "../../sdk/access-model";
import { IDENTITY_NOUNS, nounOf, type Names } from "../../sdk/words";
import type { ChangedAccess, ReviewChanges } from "./changes";
import { sayAlike } from "./alike";
import * as changeWords from "./change-words";
import { namesOf, type Writer } from "./review-names";
import { escapeHtml } from "./html-text";
import type { Review } from "./review";

/** Objects as HTML: the kind, then the name as it is, escaped. */
const htmlWriter =
  (names: Names): Writer =>
  (kind, uid) =>
    `${nounOf(kind, uid)} ${escapeHtml(names.name(kind, uid))}`;

/** An identity's name in bold, its kind beside it as a mark. */
const identityHtml = (names: Names, uid: string, kind: keyof typeof IDENTITY_NOUNS) =>
  `<strong>${escapeHtml(names.name("identity", uid))}</strong> <span class="mark">${IDENTITY_NOUNS[kind]}</span>`;

function capabilitiesHtml(capabilities: readonly string[]): string {
  return capabilities
    .map((c) => `<span class="cap${isPrivileged(c) ? " priv" : ""}">${escapeHtml(c)}</span>`)
    .join("");
}

/** A whole role's size: its count and privileged capabilities. */
const sizeHtml = (capabilities: readonly string[]) =>
  changeWords.roleSize(capabilities, (c) => capabilitiesHtml([c]), "");

/** After a whole role's size: every capability, one click away. */
const everyCapabilityHtml = (capabilities: readonly string[]) =>
  `<details><summary>every capability</summary>${capabilitiesHtml(capabilities)}</details>`;

/** The cells of a change (./format's changeWords.changeCells), written as the page's HTML. */
function cellsOf(c: ChangedAccess, names: Names): { what: string; through: string } {
  return changeWords.changeCells(
    c,
    htmlWriter(names),
    capabilitiesHtml,
    sizeHtml,
    "<br>",
    everyCapabilityHtml,
  );
}

const row = (c: ChangedAccess, cells: string[]) =>
  `<tr class="change-row" data-identity="${escapeHtml(c.identity)}" data-privileged="${c.privileged}">` +
  cells.map((cell) => `<td>${cell}</td>`).join("") +
  `</tr>`;

function accessRow(c: ChangedAccess, names: Names): string {
  const cells = cellsOf(c, names);
  return row(c, [
    identityHtml(names, c.identity, c.identityKind),
    changeWords.whereWords(c, htmlWriter(names)),
    cells.what,
    cells.through,
  ]);
}

function accessTable(
  title: string,
  list: readonly ChangedAccess[],
  names: Names,
  newness?: changeWords.Newness,
): string {
  if (list.length === 0) return "";
  const rows =
    newness === undefined
      ? list.map((c) => accessRow(c, names))
      : sayAlike(list, (c) => changeWords.changeShape(c, newness)).map((said) => {
          if ("alone" in said) return accessRow(said.alone, names);
          const w = changeWords.alikeWords(
            said.alike,
            newness,
            htmlWriter(names),
            (kind, uid) => escapeHtml(names.name(kind, uid)),
            capabilitiesHtml,
            sizeHtml,
          );
          // What changes and through which binding as the first of them says it, as a row of its own would.
          const cells = cellsOf(said.alike[0]!, names);
          return row(said.alike[0]!, [
            `${escapeHtml(w.who)}: ${w.names}`,
            escapeHtml(w.where),
            cells.what,
            cells.through,
          ]);
        });
  return (
    `<h3>${title}</h3><table><thead><tr><th>identity</th><th>on</th><th>change</th>` +
    `<th>through</th></tr></thead><tbody>${rows.join("")}</tbody></table>`
  );
}

/** A list with its first changeWords.LISTED items shown, as the text and Markdown name them, and the rest one click away. */
function listHtml(title: string, items: readonly string[]): string {
  if (items.length === 0) return "";
  const ul = (some: readonly string[]) => `<ul>${some.map((i) => `<li>${i}</li>`).join("")}</ul>`;
  const rest = items.slice(changeWords.LISTED);
  return (
    `<h3>${title}</h3>${ul(items.slice(0, changeWords.LISTED))}` +
    (rest.length === 0 ? "" : `<details><summary>and ${rest.length} more</summary>${ul(rest)}</details>`)
  );
}

function sectionOf(c: ReviewChanges, names: Names): string {
  const readAs =
    escapeHtml(c.since.at) +
    (c.since.caller === undefined ? "" : ` as ${htmlWriter(names)("identity", c.since.caller)}`);
  const identity = (change: string) => (i: ReviewChanges["identities"]["new"][number]) =>
    `${change}: ${identityHtml(names, i.uid, i.kind)}` +
    (i.privileged ? ` <span class="mark privileged">privileged</span>` : "");
  const group = (change: string) => (g: ReviewChanges["groups"]["new"][number]) =>
    `${change}: ${nounOf("group", g.uid)} <strong>${escapeHtml(names.name("group", g.uid))}</strong>` +
    (g.parent === undefined ? "" : ` under ${htmlWriter(names)("group", g.parent)}`);
  const roles = c.roles.map(
    (r) =>
      `${nounOf("role", r.uid)} <strong>${escapeHtml(names.name("role", r.uid))}</strong>` +
      (r.added.length > 0 ? ` gains ${capabilitiesHtml(r.added)}` : "") +
      (r.removed.length > 0 ? ` loses ${capabilitiesHtml(r.removed)}` : ""),
  );
  return (
    `<section class="changes" id="changes"><h2>Changes since the review read ${readAs}</h2>` +
    `<p class="summary">${escapeHtml(changeWords.changesSummary(c))}.</p>` +
    (c.partial
      ? `<div class="partial">One of the two reviews could not list everything; a change may be one of visibility.</div>`
      : "") +
    accessTable(
      "Privileged changes",
      c.access.filter((a) => a.privileged),
      names,
    ) +
    accessTable(
      "Other changes of access",
      c.access.filter((a) => !a.privileged),
      names,
      changeWords.newnessOf(c),
    ) +
    listHtml("Identities new and gone", [
      ...c.identities.new.map(identity("new")),
      ...c.identities.gone.map(identity("gone")),
    ]) +
    listHtml("Groups new and gone", [
      ...c.groups.new.map(group("new")),
      ...c.groups.gone.map(group("gone")),
    ]) +
    listHtml("Roles changed", roles) +
    `</section>`
  );
}

/** The section on what changed since the earlier review; empty when the review was not compared with one. */
export function changesHtml(r: Review): string {
  return r.changes === undefined ? "" : sectionOf(r.changes, namesOf(r));
}

/**
 * The review as one self-contained HTML page (inline CSS and JS, no network): the group tree with who holds what
 * where, filterable by identity and by capability, with a legend for a reader who never ran the command. Every
 * name from the API is data: HTML-escaped where it is written, never code.
 *
 * May import: ./changes-html, ./format, ./review.
 */
import { changesHtml } from "./changes-html";
import { groupBy, marks } from "./format";
import type { Review } from "./review";

const escape = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c as "&"],
  );

const CSS = `
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em;color:#1b1f24;background:#fff}
h1{font-size:1.4em;margin:0 0 .3em}
.summary{color:#555;margin:.2em 0 1em}
.partial{background:#fff4e5;border:1px solid #f0b35a;padding:.5em .8em;margin:.5em 0}
.legend{background:#f6f8fa;border:1px solid #d0d7de;padding:.6em .9em;margin:.6em 0 1em;font-size:.92em}
.legend dt{font-weight:600;display:inline}.legend dd{display:inline;margin:0 1em 0 .3em}
.filters{display:flex;gap:1em;flex-wrap:wrap;align-items:center;margin:.6em 0;position:sticky;top:0;background:#fff;padding:.4em 0;border-bottom:1px solid #eee}
.filters label{font-weight:600}
.group{border-left:3px solid #d0d7de;padding:.2em 0 .4em .7em;margin:.4em 0}
.group h2{font-size:1.05em;margin:.2em 0}
.uid{color:#6e7781;font:12px ui-monospace,monospace}
table{border-collapse:collapse;width:100%;margin:.2em 0;table-layout:fixed}
th:nth-child(1){width:24%}th:nth-child(2){width:9%}th:nth-child(3){width:16%}
td{overflow-wrap:anywhere}
td,th{border-bottom:1px solid #eaeef2;padding:.25em .5em;text-align:left;vertical-align:top}
th{font-size:.85em;color:#555}
.cap{display:inline-block;font:12px ui-monospace,monospace;border-radius:3px;padding:0 .35em;margin:.1em;border:1px solid #9ec5fe;background:#e7f1ff}
.cap.inherited{background:#f3f4f6;border:1px dashed #9aa4ae}
.cap.priv{border-color:#d1242f;color:#a40e26;font-weight:600}
.cap.match{outline:2px solid #1a7f37}
.mark{display:inline-block;font-size:.78em;border-radius:8px;padding:0 .5em;margin-right:.25em;background:#eef}
.mark.privileged{background:#ffebe9;color:#a40e26}.mark.unused{background:#fff8c5}.mark.unmanaged{background:#fbefff}
.nobody{color:#888;font-style:italic}
`;

const SCRIPT = `
(function(){
  var idSel=document.getElementById('filter-identity'),capSel=document.getElementById('filter-capability');
  var privOnly=document.getElementById('filter-privileged'),count=document.getElementById('visible-count');
  function apply(){
    var id=idSel.value,cap=capSel.value,p=privOnly.checked,shown=0;
    document.querySelectorAll('section.group').forEach(function(sec){
      var any=0;
      sec.querySelectorAll('tr.grant-row').forEach(function(tr){
        var caps=tr.getAttribute('data-caps').split(' ');
        var ok=(!id||tr.getAttribute('data-identity')===id)&&(!cap||caps.indexOf(cap)>=0)&&(!p||tr.getAttribute('data-privileged')==='true');
        tr.style.display=ok?'':'none';
        tr.querySelectorAll('.cap').forEach(function(c){c.classList.toggle('match',!!cap&&c.getAttribute('data-cap')===cap);});
        if(ok){any++;shown++;}
      });
      var none=sec.querySelector('.nomatch');if(none)none.style.display=any?'none':'';
      var t=sec.querySelector('table');if(t)t.style.display=any?'':'none';
    });
    count.textContent=shown+' row'+(shown===1?'':'s')+' shown';
  }
  idSel.addEventListener('change',apply);capSel.addEventListener('change',apply);privOnly.addEventListener('change',apply);
  apply();
})();
`;

/** The page. */
export function reviewHtml(r: Review): string {
  const ids = new Map(r.identities.map((i) => [i.uid, i]));
  const capabilities = [...new Set(r.grants.map((g) => g.capability))].sort();
  const byGroup = groupBy(r.grants, (g) => g.group);

  const sections = r.groups.map((g) => {
    const holders = groupBy(byGroup.get(g.uid) ?? [], (x) => x.identity);
    const rows = [...holders].map(([h, mine]) => {
      const i = ids.get(h)!;
      const chips = mine.map((x) => {
        const inherited = x.through.every((t) => t.inherited);
        const why = x.through
          .map(
            (t) =>
              `${t.roleName} ${t.inherited ? `inherited from ${t.boundOnName}` : "bound here"} (binding ${t.binding})`,
          )
          .join("; ");
        return `<span class="cap${inherited ? " inherited" : ""}${x.privileged ? " priv" : ""}" data-cap="${escape(x.capability)}" title="${escape(why)}">${escape(x.capability)}</span>`;
      });
      const through = [
        ...new Map(mine.flatMap((x) => x.through).map((t) => [t.binding, t] as const)).values(),
      ]
        .map(
          (t) =>
            `${escape(t.roleName)} ${t.inherited ? `<em>inherited from ${escape(t.boundOnName)}</em>` : "bound here"}`,
        )
        .join("<br>");
      const markHtml = marks(i)
        .map((m) => `<span class="mark ${escape(m.split(" ")[0]!)}">${escape(m)}</span>`)
        .join("");
      return (
        `<tr class="grant-row" data-identity="${escape(h)}" data-caps="${escape(mine.map((x) => x.capability).join(" "))}" data-privileged="${mine.some((x) => x.privileged)}">` +
        `<td><strong>${escape(i.name)}</strong><br><span class="uid">${escape(h)}</span></td>` +
        `<td>${markHtml}</td><td>${through}</td><td>${chips.join("")}</td></tr>`
      );
    });
    const table =
      rows.length > 0
        ? `<table><thead><tr><th>identity</th><th>marks</th><th>through (role, where bound)</th><th>capabilities held here</th></tr></thead><tbody>${rows.join("")}</tbody></table>`
        : "";
    return (
      `<section class="group" data-group="${escape(g.uid)}" style="margin-left:${g.depth * 1.6}em">` +
      `<h2>${escape(g.name)} <span class="uid">${escape(g.uid)}</span></h2>${table}` +
      `<p class="nobody nomatch">${rows.length > 0 ? "nobody matches the filters here" : "nobody holds access here"}</p></section>`
    );
  });

  const identityOptions = r.identities
    .map((i) => `<option value="${escape(i.uid)}">${escape(i.name)} (${escape(i.kind)})</option>`)
    .join("");
  const capabilityOptions = capabilities
    .map((c) => `<option value="${escape(c)}">${escape(c)}</option>`)
    .join("");
  const partial =
    r.partial.length > 0
      ? `<div class="partial"><strong>Partial:</strong> the credentials used may not list everything; what they cannot see is not shown.<ul>${r.partial.map((p) => `<li>${escape(p)}</li>`).join("")}</ul></div>`
      : "";
  const states =
    r.states.length > 0
      ? `stacks' states compared: ${r.states.map(escape).join(", ")}`
      : "no stack states given: unmanaged identities are not marked";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>Access review: ${escape(r.group.name)}</title><style>${CSS}</style></head><body>
<h1>Who can do what: ${escape(r.group.name)} <span class="uid">${escape(r.group.uid)}</span></h1>
<p class="summary">${r.groups.length} groups, ${r.identities.length} identities with access, ${r.grants.length} capabilities held. Read ${escape(r.at)} with ${r.calls} API calls${r.caller !== undefined ? ` as ${escape(r.caller)}` : ""}; ${states}.</p>
${partial}
${changesHtml(r)}
<dl class="legend">
<dt>Group tree</dt><dd>each box is a group; groups below it are indented under it.</dd>
<dt>Inherited</dt><dd>a role binding on a group grants its role's capabilities on that group and on every group below it, so a capability can be held on a group through a binding on one of its ancestors: it is then shown <span class="cap inherited">dashed and grey</span>, and "inherited from" names the ancestor. <span class="cap">Solid blue</span>: bound on this group itself.</dd>
<dt>Privileged</dt><dd><span class="cap priv">red</span> capabilities let the holder grant access (to itself or others).</dd>
<dt>person / workload</dt><dd>a person is a root-level user; a workload is an identity under a group (CI, services).</dd>
<dt>unused</dt><dd>a workload that has not exchanged a token in ${r.unusedAfterDays} days, or never.</dd>
<dt>unmanaged</dt><dd>no stack declares the identity or any of its bindings.</dd>
</dl>
<div class="filters">
<label for="filter-identity">Identity</label><select id="filter-identity"><option value="">all identities</option>${identityOptions}</select>
<label for="filter-capability">Capability</label><select id="filter-capability"><option value="">all capabilities</option>${capabilityOptions}</select>
<label><input type="checkbox" id="filter-privileged"> privileged only</label>
<span id="visible-count"></span>
</div>
<main>${sections.join("\n")}</main>
<script>${SCRIPT}</script>
</body></html>
`;
}

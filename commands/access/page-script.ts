/**
 * The access page's script (./html embeds it as it is): it reads the page's data block (./page-data), renders the
 * group tree lazily (a group's bindings and subgroups only once it is open, a hundred at a time) and filters over
 * the data, not over the DOM. Every name from the data goes into the DOM as text (textContent, attributes), never as
 * markup. Plain browser JavaScript in a string: compiled TypeScript would carry test coverage counters into it.
 */
export const PAGE_SCRIPT = String.raw`
(() => {
  "use strict";
  const data = JSON.parse(document.getElementById("review-data").textContent);
  const groups = data.groups, identities = data.identities, roles = data.roles;
  const capabilities = data.capabilities, bindings = data.bindings;
  const PAGE = 100;
  const number = new Intl.NumberFormat("en-US");
  const byId = (id) => document.getElementById(id);
  const tree = byId("tree"), status = byId("visible-count");
  const controls = {
    search: byId("filter-search"), identity: byId("filter-identity"), capability: byId("filter-capability"),
    kind: byId("filter-kind"), privileged: byId("filter-privileged"), unused: byId("filter-unused"),
    unmanaged: byId("filter-unmanaged"),
  };

  // Indexes, made once.
  const children = groups.map(() => []);
  groups.forEach((g, i) => { if (g.parent >= 0) children[g.parent].push(i); });
  const bindingsOn = groups.map(() => []);
  bindings.forEach((b, i) => bindingsOn[b.group].push(i));
  const roleCapabilities = roles.map((r) => new Set(r.capabilities || []));
  const rolePrivileged = roles.map((r) => (r.capabilities || []).filter((c) => capabilities[c].privileged).length);
  const identityIndex = new Map(identities.map((x, i) => [x.uid, i]));
  const capabilityIndex = new Map(capabilities.map((c, i) => [c.name, i]));
  const lower = (list) => list.map((x) => x.name.toLowerCase());
  const names = { groups: lower(groups), identities: lower(identities), roles: lower(roles) };

  const plural = (n, one, many) => number.format(n) + " " + (n === 1 ? one : many);
  function el(tag, props, kids) {
    const node = document.createElement(tag);
    Object.assign(node, props || {});
    for (const kid of [].concat(kids === undefined ? [] : kids))
      node.append(typeof kid === "string" ? document.createTextNode(kid) : kid);
    return node;
  }

  // The filters, read from the form.
  function readFilters() {
    const identity = identityIndex.get(controls.identity.value);
    const capability = capabilityIndex.get(controls.capability.value);
    return {
      search: controls.search.value.trim().toLowerCase(),
      identity: identity === undefined ? -1 : identity,
      capability: capability === undefined ? -1 : capability,
      kind: controls.kind.value,
      privileged: controls.privileged.checked,
      unused: controls.unused.checked,
      unmanaged: controls.unmanaged.checked,
    };
  }
  const narrows = (f) => f.identity >= 0 || f.capability >= 0 || f.kind !== "" || f.privileged || f.unused || f.unmanaged;

  /** Does binding b pass every filter but the search? */
  function passes(b, f) {
    const who = identities[b.identity];
    return (f.identity < 0 || b.identity === f.identity) &&
      (f.capability < 0 || roleCapabilities[b.role].has(f.capability)) &&
      (f.kind === "" || who.kind === f.kind) &&
      (!f.privileged || rolePrivileged[b.role] > 0) &&
      (!f.unused || who.unused === true) &&
      (!f.unmanaged || who.unmanaged === true);
  }
  /** Does the search find binding b: its identity, its role or the group it is bound on, by name? */
  function found(b, f) {
    const q = f.search;
    return q === "" || names.identities[b.identity].includes(q) || names.roles[b.role].includes(q) ||
      names.groups[b.group].includes(q) || (b.elsewhere !== undefined && b.elsewhere.name.toLowerCase().includes(q));
  }

  /** What the filters show: the bindings that match, the groups holding them and every group on the way to them. */
  function selection(f) {
    const row = new Uint8Array(bindings.length), shown = new Uint8Array(groups.length), hit = new Uint8Array(groups.length);
    let rows = 0;
    const show = (g) => { hit[g] = 1; for (; g >= 0 && !shown[g]; g = groups[g].parent) shown[g] = 1; };
    bindings.forEach((b, i) => {
      if (!passes(b, f) || !found(b, f)) return;
      row[i] = 1; rows++; show(b.group);
    });
    // Searching a group by name shows it, when nothing else narrows what is shown.
    if (f.search !== "" && !narrows(f)) names.groups.forEach((name, g) => { if (name.includes(f.search)) show(g); });
    // Groups with matches below each group: in tree order a subtree follows its group, so sum from the end.
    const hitsBelow = new Uint32Array(groups.length);
    for (let g = groups.length - 1; g > 0; g--) hitsBelow[groups[g].parent] += hit[g] + hitsBelow[g];
    return { row, shown, rows, hits: hitsBelow[0] + hit[0], hitsBelow };
  }

  let view = { filters: readFilters(), selection: null };
  const rowsOf = (g) => (view.selection ? bindingsOn[g].filter((i) => view.selection.row[i]) : bindingsOn[g]);
  const childrenOf = (g) => (view.selection ? children[g].filter((c) => view.selection.shown[c]) : children[g]);
  // Unfiltered, the group reviewed is open (everything is, in a small tree); filtered, every group shown is.
  const openAtFirst = (g) => view.selection !== null || g === 0 || groups.length <= 30;

  /** Appends items to list a page at a time, with a button for the next page. */
  function paged(list, items, make, noun) {
    let done = 0;
    const more = el("button", { type: "button", className: "more" });
    const next = () => {
      const end = Math.min(items.length, done + PAGE), part = document.createDocumentFragment();
      for (; done < end; done++) part.append(make(items[done]));
      list.append(part);
      const left = items.length - done;
      if (left === 0) more.remove();
      else more.textContent = "Show " + plural(Math.min(PAGE, left), "more " + noun, "more " + noun + "s") + " (" + number.format(left) + " not shown yet)";
    };
    more.addEventListener("click", next);
    next();
    return items.length > done ? [list, more] : [list];
  }

  function marks(who) {
    const out = [el("span", { className: "mark " + who.kind }, data.kindWords[who.kind][0])];
    if (who.privileged) out.push(el("span", { className: "mark privileged" }, "privileged"));
    if (who.unused === true) out.push(el("span", { className: "mark unused", title: "no token exchange in " + data.unusedAfterDays + " days" }, who.lastSeenTime === undefined ? "unused (never seen)" : "unused"));
    if (who.unmanaged === true) out.push(el("span", { className: "mark unmanaged", title: "no stack's state declares it or its bindings" }, "unmanaged"));
    return out;
  }

  /** Where a binding grants its role: the group it is on and every group below. */
  function where(b) {
    const below = groups[b.group].below;
    const rest = below === 0 ? "" : ", and the " + (below === 1 ? "group" : number.format(below) + " groups") + " below";
    if (b.elsewhere === undefined) return "bound here" + rest;
    if (b.elsewhere.above) return "inherited from " + b.elsewhere.name + " (above this review): here" + rest;
    return "bound on " + b.elsewhere.name + ", a group below this one that the credentials used may not list";
  }

  /** A role by name; its capabilities are shown when asked (the details is filled when opened). */
  function role(r) {
    const it = roles[r], caps = it.capabilities;
    const count = caps === null ? "capabilities not visible" :
      plural(caps.length, "capability", "capabilities") + (rolePrivileged[r] ? ", " + number.format(rolePrivileged[r]) + " privileged" : "");
    const label = [el("span", { className: "rname" }, it.name), " ", el("span", { className: "meta" }, count)];
    const f = view.filters;
    if (f.capability >= 0) label.push(" ", el("span", { className: "cap match" }, capabilities[f.capability].name));
    const details = el("details", { className: "caps" }, [el("summary", { title: "role " + it.uid }, label)]);
    details.dataset.role = String(r);
    return details;
  }
  function fillRole(details, r) {
    const caps = roles[r].capabilities || [], f = view.filters;
    details.append(el("div", { className: "chips" }, caps.map((c) =>
      el("span", { className: "cap" + (capabilities[c].privileged ? " priv" : "") + (c === f.capability ? " match" : "") }, capabilities[c].name))));
  }

  /** What manages a binding: "managed by <stack>: <resource>", "no stack"; nothing when no state was given. */
  function managed(b) {
    if (b.managedBy === null) return [];
    const text = b.managedBy.length === 0 ? "no stack" :
      "managed by " + b.managedBy.map((m) => data.stacks[m.stack] + ": " + m.resource).join(", ");
    return [el("span", { className: "managed" + (b.managedBy.length === 0 ? " no-stack" : "") }, text)];
  }

  const nameAndRole = (i) => identities[bindings[i].identity].name + " (" + roles[bindings[i].role].name + ")";
  function bindingRow(i) {
    const b = bindings[i], who = identities[b.identity];
    const row = el("li", { className: "binding" }, [
      el("span", { className: "who" }, [el("strong", { title: who.uid }, who.name), " "].concat(marks(who))),
      el("span", { className: "role" }, [role(b.role)]),
      el("span", { className: "where", title: "role binding " + b.uid }, where(b)),
    ].concat(managed(b)));
    row.dataset.binding = b.uid;
    return row;
  }

  function groupNode(g) {
    const rows = rowsOf(g), all = bindingsOn[g].length;
    const meta = [], below = groups[g].below, s = view.selection;
    if (s !== null && all > 0) meta.push(number.format(rows.length) + " of " + plural(all, "binding", "bindings") + " here " + (rows.length === 1 ? "matches" : "match"));
    else if (all === 0) meta.push("nothing bound here");
    // A few bindings are named in the group's line, so a closed group still says who is there.
    else meta.push(plural(all, "binding", "bindings") + " here" + (all > 3 ? "" : ": " + rows.map(nameAndRole).join(", ")));
    if (below > 0) meta.push(s === null ? plural(below, "group", "groups") + " below" :
      "matches in " + number.format(s.hitsBelow[g]) + " of " + plural(below, "group", "groups") + " below");
    const details = el("details", { className: "group" }, [el("summary", {}, [
      el("span", { className: "gname", title: groups[g].uid }, groups[g].name), " ", el("span", { className: "meta" }, meta.join(" · ")),
    ])]);
    details.dataset.group = String(g);
    if (openAtFirst(g)) { details.open = true; fillGroup(details, g); }
    const node = el("li", { className: "node" }, [details]);
    node.dataset.uid = groups[g].uid;
    return node;
  }
  function fillGroup(details, g) {
    details.dataset.filled = "1";
    const rows = rowsOf(g), kids = childrenOf(g);
    if (rows.length > 0) details.append(...paged(el("ul", { className: "bindings" }), rows, bindingRow, "binding"));
    if (kids.length > 0) details.append(...paged(el("ul", { className: "groups" }), kids, groupNode, "group"));
  }
  tree.addEventListener("toggle", (event) => {
    const details = event.target;
    if (!details.open || details.dataset.filled) return;
    if (details.dataset.group !== undefined) fillGroup(details, Number(details.dataset.group));
    else if (details.dataset.role !== undefined) { details.dataset.filled = "1"; fillRole(details, Number(details.dataset.role)); }
  }, true);

  function render() {
    const f = readFilters();
    view = { filters: f, selection: f.search !== "" || narrows(f) ? selection(f) : null };
    const s = view.selection;
    if (s === null) status.textContent = plural(bindings.length, "role binding", "role bindings") + " on " + plural(groups.length, "group", "groups");
    else status.textContent = s.rows === 0 && s.hits === 0 ? "nothing matches" :
      plural(s.rows, "binding matches", "bindings match") + ", on " + plural(s.hits, "group", "groups");
    tree.replaceChildren(s !== null && s.hits === 0 ? el("p", { className: "none" }, "Nothing matches the filters.") : el("ul", { className: "groups top" }, [groupNode(0)]));
  }
  function apply() {
    render();
    if (tree.getBoundingClientRect().top < 0) tree.scrollIntoView();
  }

  for (const name of ["identity", "capability", "kind", "privileged", "unused", "unmanaged"])
    controls[name].addEventListener("change", apply);
  controls.search.addEventListener("input", apply);

  // The summary's counts and names set the filters that show their rows.
  const PRESETS = new Map([
    ["privileged-workloads", { privileged: true, kind: "workload" }], ["privileged", { privileged: true }],
    ["unused", { unused: true }], ["unmanaged", { unmanaged: true }],
    ["people", { kind: "person" }], ["workloads", { kind: "workload" }],
  ]);
  function setFilters(preset) {
    controls.search.value = "";
    controls.identity.value = preset.identity || "";
    controls.capability.value = "";
    controls.kind.value = preset.kind || "";
    for (const box of ["privileged", "unused", "unmanaged"]) controls[box].checked = preset[box] === true;
    render();
  }
  document.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-preset], button[data-identity], button#filter-clear");
    if (button === null) return;
    if (button.id === "filter-clear") return setFilters({});
    setFilters(button.dataset.identity !== undefined ? { identity: button.dataset.identity } : PRESETS.get(button.dataset.preset) || {});
    tree.scrollIntoView();
  });

  render();
  performance.mark("review-tree-rendered");
  // The menus, from the data, once the tree is drawn: users first, then workload identities with the group each lives
  // in (names can repeat); each kind in the words every output uses (the data's kindWords).
  const people = el("optgroup", { label: data.kindWords.person[1] });
  const workloads = el("optgroup", { label: data.kindWords.workload[1] });
  for (const x of identities) {
    const label = x.kind === "person" || x.home < 0 ? x.name : x.name + " (in " + groups[x.home].name + ")";
    (x.kind === "person" ? people : workloads).append(el("option", { value: x.uid, title: x.uid }, label));
  }
  controls.identity.append(people, workloads);
  controls.capability.append(...capabilities.map((c) => el("option", { value: c.name }, c.name + (c.privileged ? " (privileged)" : ""))));

  performance.mark("review-ready");
})();
`;

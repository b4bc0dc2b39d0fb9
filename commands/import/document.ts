/**
 * The `pulumi import --file` document: what was found (by the API walk or in a Terraform state), named, with each
 * object's Pulumi parent (the group that contains it, when that group is in the same import).
 *
 * The format is the engine's import file (pulumi/pkg/cmd/pulumi/operations/import.go, `importFile`): `resources` of
 * `{ type, name, id, parent? }`, where `parent` is the `name` of another entry. `pulumi import` also turns a property
 * whose value equals another imported resource's id into a reference to it (`folder.id`) in the code it prints, so
 * uids of objects in the same import come out as references. The engine ignores members it does not know, so the
 * document also carries, under `platformImport`, what could not be recovered and what was not imported, and why.
 */
import { IMPORT_KINDS, KIND_ORDER, type ImportKind } from "../kinds";
import type { ResourceDeclaration } from "../../provider/core/declaration";
import { depthOf } from "../../sdk/uidp";

/** An object to import. */
export interface Found {
  kind: ImportKind;
  /** The import id: the object's uid (an account association's is its group's uid). */
  uid: string;
  /** What its name is derived from: the object's name, or for a binding or an invite what it links. */
  base: string;
  /** The uid of the group it lives in (a group's parent, an association's own group); none for an organization. */
  group?: string | undefined;
  /** Its `name` output (the object's own name), for the kinds that have one. */
  outputName?: string | undefined;
  /** The string values of its inputs, as far as known (for predicting the references the engine will guess). */
  strings?: readonly string[];
  /** A role binding's identity and role (its group is `group`). */
  binding?: { identity: { uid: string; name: string }; role: { uid: string; name: string } };
}

/** Something the import cannot carry over, and what to do about it. */
export interface Note {
  /** The resource's name in the document. */
  name: string;
  type: string;
  id: string;
  what: string;
  todo: string;
}

/** Something found that is not in the document, and why. */
export interface Skipped {
  /** The object (a uid, or a Terraform address). */
  subject: string;
  reason: string;
}

export interface ImportSpec {
  type: string;
  name: string;
  id: string;
  parent?: string;
}

export interface ImportDocument {
  resources: ImportSpec[];
  platformImport: {
    /** Where the objects came from: `api <group uid>` or `terraform <file>`. */
    source: string;
    notes: Note[];
    skipped: Skipped[];
    /** What will keep the printed program from referring to objects by reference, and what to do. */
    warnings: string[];
    /** Terraform addresses of the resources in the document (Terraform source only), for `terraform state rm`. */
    terraformAddresses?: string[];
  };
}

/**
 * Words a printed program cannot use as a variable (TypeScript, Go, Python keywords and the names the printed code
 * itself uses), compared without dashes: a name whose variable would be one of them gets its kind appended.
 */
const RESERVED = new Set(
  (
    "abstract arguments as async await boolean break byte case catch chan char class config const continue ctx " +
    "debugger def default defer del delete do double elif else enum err eval except export extends false " +
    "fallthrough final finally float for from func function global go goto if implements import in infinity " +
    "instanceof int interface is lambda let long main map nan native new nil none nonlocal not null number or " +
    "package pass platform private protected public pulumi raise range return select short static string struct " +
    "super switch symbol synchronized this throw throws transient true try type typeof undefined var void " +
    "volatile while with yield iam"
  ).split(" "),
);

const MAX_NAME = 48;

function kindWord(kind: ImportKind): string {
  return IMPORT_KINDS[kind].label.replace(/ /g, "-");
}

/**
 * A valid name from any text: lowercase ASCII letters, digits and single dashes, starting with a letter, at most 48
 * characters (57 with a suffix); the kind's word when nothing usable is left.
 */
export function nameFrom(text: string, kind: ImportKind): string {
  let name = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+/, "")
    .slice(0, MAX_NAME)
    .replace(/-+$/, "");
  if (name === "") name = kindWord(kind);
  if (/^[0-9]/.test(name)) name = `${kindWord(kind)}-${name}`;
  if (RESERVED.has(name.replace(/-/g, ""))) name = `${name}-${kindWord(kind)}`;
  return name;
}

/** Two names clash when their printed variables would (`team-a`, `teamA` and `team_a` all print `teamA`). */
export function clashKey(name: string): string {
  return name.replace(/[^a-z0-9]/gi, "").toLowerCase();
}

export function keyOf(found: Pick<Found, "kind" | "uid">): string {
  return `${found.kind} ${found.uid}`;
}

/**
 * A unique, valid name for every object, the same whatever order they come in: objects are taken by kind, base
 * name and uid; the first keeps the plain name, a clash with another kind's object first adds the kind, then a
 * number.
 */
export function assignNames(found: readonly Found[]): Map<string, string> {
  const sorted = [...found].sort(
    (a, b) =>
      KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) ||
      compare(nameFrom(a.base, a.kind), nameFrom(b.base, b.kind)) ||
      compare(a.uid, b.uid),
  );
  const taken = new Map<string, ImportKind>();
  const names = new Map<string, string>();
  for (const item of sorted) {
    const base = nameFrom(item.base, item.kind);
    let name = base;
    const holder = taken.get(clashKey(name));
    if (holder !== undefined && holder !== item.kind) name = `${base}-${kindWord(item.kind)}`;
    for (let n = 2; taken.has(clashKey(name)); n++) name = `${base}-${n}`;
    taken.set(clashKey(name), item.kind);
    names.set(keyOf(item), name);
  }
  return names;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Every string in a value (object members, array items), but those under the keys given. */
export function stringLeaves(value: unknown, skip: readonly string[] = []): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap((v) => stringLeaves(v, skip));
  if (typeof value === "object" && value !== null)
    return Object.entries(value).flatMap(([k, v]) => (skip.includes(k) ? [] : stringLeaves(v, skip)));
  return [];
}

/**
 * The document: groups first (outermost first), then every other kind in KIND_ORDER, each sorted by name; an
 * object's `parent` is the name of the group it lives in when that group is imported too.
 */
export function buildDocument(
  found: readonly Found[],
  extra: {
    source: string;
    notes?: (names: Map<string, string>) => Note[];
    skipped?: Skipped[];
    terraformAddresses?: string[];
    /** Warnings beyond the references the engine will guess. */
    warnings?: string[];
  },
): ImportDocument {
  const names = assignNames(found);
  const groupNames = new Map<string, string>();
  for (const item of found) if (item.kind === "group") groupNames.set(item.uid, names.get(keyOf(item))!);
  const ordered = [...found].sort(
    (a, b) =>
      KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) ||
      (a.kind === "group" ? depthOf(a.uid) - depthOf(b.uid) : 0) ||
      compare(names.get(keyOf(a))!, names.get(keyOf(b))!),
  );
  const resources = ordered.map((item): ImportSpec => {
    const parent = item.group === undefined ? undefined : groupNames.get(item.group);
    return {
      type: IMPORT_KINDS[item.kind].token,
      name: names.get(keyOf(item))!,
      id: item.uid,
      ...(parent !== undefined ? { parent } : {}),
    };
  });
  return {
    resources,
    platformImport: {
      source: extra.source,
      notes: extra.notes?.(names) ?? [],
      skipped: extra.skipped ?? [],
      warnings: [...(extra.warnings ?? []), ...referenceWarnings(found, names)],
      ...(extra.terraformAddresses ? { terraformAddresses: extra.terraformAddresses } : {}),
    },
  };
}

/**
 * What to do about each property an import cannot recover: the declarations' write-only inputs (the service never
 * returns them) and secret outputs (the service shows them once). A test checks this covers exactly those.
 */
export const UNRECOVERABLE: Record<string, { what: string; todo: string }> = {
  "platform:iam:IdentityProvider.clientSecret": {
    what: "clientSecret: the service never returns it",
    todo:
      'the printed code gives it as "": keep that (the plugin takes "" for a secret an import could not read, and ' +
      "the service keeps the one it has), or give the secret from config, which the next up sends as the current one",
  },
  "platform:iam:GroupInvite.code": {
    what: "code: the service shows an invite's code once, when it is made",
    todo:
      "hand out the code you already have; for a new code, replace the invite (`pulumi up --replace <urn>`), " +
      "which makes a new one",
  },
};

/** The properties of a declaration that an import cannot recover. */
export function unrecoverableProperties(declaration: ResourceDeclaration): string[] {
  const secretOutputs = declaration.secrets.filter((key) => declaration.outputOnly.includes(key));
  return [...declaration.writeOnly, ...secretOutputs];
}

/** The notes every import of these kinds needs: what the service never returns. */
export function unrecoverableNotes(found: readonly Found[], names: Map<string, string>): Note[] {
  const notes: Note[] = [];
  for (const item of found) {
    const name = names.get(keyOf(item))!;
    const { declaration } = IMPORT_KINDS[item.kind];
    const at = { name, type: declaration.token, id: item.uid };
    for (const key of unrecoverableProperties(declaration)) {
      const advice = UNRECOVERABLE[`${declaration.token}.${key}`];
      if (advice === undefined) throw new Error(`no advice for ${declaration.token}.${key} in UNRECOVERABLE`);
      notes.push({ ...at, ...advice });
    }
  }
  return notes;
}

/**
 * The values `pulumi import` prints as a reference, as the engine guesses them (pkg/importer/language.go,
 * createImportState and filterReferences; hcl2.go, generateValue): every imported resource's id and its `name`
 * output are candidates; for each resource it drops its own, then every value that is left more than once, and
 * prints a string input equal to a remaining value as a reference to the resource it came from. Gives, for the
 * resource at `from`, the index of the resource `value` refers to, if any.
 */
export function referenceGuesser(
  resources: readonly { id: string; outputName?: string | undefined }[],
): (from: number, value: string) => number | undefined {
  const byValue = new Map<string, number[]>();
  resources.forEach((r, i) => {
    for (const value of [r.id, ...(r.outputName ? [r.outputName] : [])])
      byValue.set(value, [...(byValue.get(value) ?? []), i]);
  });
  return (from, value) => {
    const others = (byValue.get(value) ?? []).filter((j) => j !== from);
    return others.length === 1 ? others[0] : undefined;
  };
}

/**
 * The cycles of a graph (its strongly connected components of more than one node, Tarjan), each as node indexes.
 * The engine prints no reference at all when its guesses, with the `parent` options, make one (GenerateLanguage-
 * Definitions falls back to literals on a "circular reference").
 */
export function cyclesOf(edges: readonly (readonly number[])[]): number[][] {
  const index: number[] = edges.map(() => -1);
  const low: number[] = edges.map(() => 0);
  const onStack: boolean[] = edges.map(() => false);
  const stack: number[] = [];
  const cycles: number[][] = [];
  let counter = 0;
  const visit = (v: number): void => {
    index[v] = low[v] = counter++;
    stack.push(v);
    onStack[v] = true;
    for (const w of edges[v]!) {
      if (index[w] === -1) {
        visit(w);
        low[v] = Math.min(low[v]!, low[w]!);
      } else if (onStack[w]) low[v] = Math.min(low[v]!, index[w]!);
    }
    if (low[v] === index[v]) {
      const component: number[] = [];
      let w: number;
      do {
        w = stack.pop()!;
        onStack[w] = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component);
    }
  };
  edges.forEach((_, i) => {
    if (index[i] === -1) visit(i);
  });
  return cycles;
}

/**
 * The references `pulumi import` will guess (referenceGuesser), and whether they form a cycle: two objects of the
 * same name do that: each one's `name` refers to the other's.
 */
export function referenceWarnings(found: readonly Found[], names: Map<string, string>): string[] {
  const keys = found.map(keyOf);
  const guess = referenceGuesser(found.map((f) => ({ id: f.uid, outputName: f.outputName })));
  const groupIndex = new Map<string, number>();
  found.forEach((item, i) => {
    if (item.kind === "group") groupIndex.set(item.uid, i);
  });
  const edges: number[][] = found.map(() => []);
  found.forEach((item, i) => {
    if (item.group !== undefined && item.group !== item.uid) {
      const parent = groupIndex.get(item.group);
      if (parent !== undefined) edges[i]!.push(parent);
    } else if (item.kind === "accountAssociation") {
      const parent = groupIndex.get(item.uid);
      if (parent !== undefined) edges[i]!.push(parent);
    }
    for (const value of new Set(item.strings ?? [])) {
      const target = guess(i, value);
      if (target !== undefined) edges[i]!.push(target);
    }
  });
  const cycles = cyclesOf(edges);
  if (cycles.length === 0) return [];
  const described = cycles
    .map((c) =>
      c
        .map((i) => names.get(keys[i]!)!)
        .sort()
        .join(", "),
    )
    .sort();
  return [
    `pulumi import will print every uid as a literal, not as a reference: its guesses would make these objects ` +
      `refer to each other in a circle (usually two objects that share a name, or a group whose description is ` +
      `the name of something inside it): ${described.map((d) => `[${d}]`).join(" ")}. The printed program is ` +
      `still right (it previews no change), and each object still sits under its group; write the references ` +
      `(\`folder.uid\`) by hand where you want them`,
  ];
}

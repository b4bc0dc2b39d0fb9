/**
 * How every output a person reads writes an object of the API: the provider's impact and preflight lines, the policy
 * pack's access plan, `platform-access` (text, Markdown, the page) and `platform-import`'s report. Written once here
 * so the preview, the review and the pull request's comment say the same thing the same way.
 *
 * - **A name** is the service's, chosen by whoever may create the object, so it is data: it reads as itself when it
 *   is plain (letters, digits and `._@+/-`, no space), otherwise in double quotes with every character that could
 *   forge or hide a line escaped as JSON escapes it (`nameText`). Nothing a name holds (a line break, an ANSI escape,
 *   a bidi override, a zero-width character, a quote) can start a line, repaint one or end the quotes early, and a
 *   quoted name is a JSON string: `readName` gives the exact name back.
 * - **A kind** is said before the name, in the spec's nouns: a group is an `organization` (a root group) or a
 *   `folder`; an identity is a `user` (root-level) or a `workload identity` (under a group); a role is a
 *   `built-in role` (root-level) or a `role`. The review's JSON keeps its data values for an identity's kind,
 *   `person` and `workload` (a versioned format): `IDENTITY_NOUNS` is the mapping.
 * - **A capability** is written as it is when well formed, otherwise quoted like a name (`capabilityText`).
 * - **A program's resource** is its type and its logical name, always quoted (`resourceText`).
 * - **A uid** only tells apart two of a noun that share a name ("folder platform (<uid>)"), or stands where no name
 *   is known ("folder <uid>"): `Names`.
 *
 * Markdown is commands/markdown's job (it writes these words into a cell), HTML escaping commands/access/html-text's,
 * CSV quoting the CSV writer's: each a different job over the same words.
 */
import { COLLECTIONS, type CollectionName } from "./collections";
import { isRoot } from "./uidp";

declare const WORDS: unique symbol;

/**
 * Text for a person made here: every name escaped (`nameText`), every count with its plural (`countOf`). What a
 * person reads beside our own words, an error's context (provider/core/errors `Attempt`), takes only this, so a name
 * written raw, or a plural made by hand, does not compile there.
 */
export type Words = string & { readonly [WORDS]: true };

/** Our own words as `Words`: the literal text, with only `Words` (or numbers) put in (`said\`under ${nameText(x)}\``). */
export function said(text: TemplateStringsArray, ...parts: readonly (Words | number)[]): Words {
  return text.reduce(
    (out, literal, i) => out + literal + (i < parts.length ? String(parts[i]) : ""),
    "",
  ) as Words;
}

/** `Words` joined by our own separator. */
export function joinWords(parts: readonly Words[], separator = ", "): Words {
  return parts.join(separator) as Words;
}

/** Reads as itself: letters, digits and a few joiners, no space (so it cannot pass for more than one word). */
const PLAIN = /^[A-Za-z0-9][A-Za-z0-9._@+/-]*$/;

/**
 * Never written raw: controls, format characters (bidi overrides, zero-width), private use, unassigned code points
 * and lone surrogates (`\p{C}`), line and paragraph separators, and every space but U+0020 (one that looks like a
 * space and is not).
 */
const UNSAFE = /[\p{C}\p{Z}]/u;
const unsafe = (c: string) => c !== " " && UNSAFE.test(c);

/** `\uXXXX` per UTF-16 unit, as JSON escapes it (a character beyond U+FFFF as its two halves). */
const unicodeEscape = (c: string) =>
  Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`).join("");

const SHORT_ESCAPES = new Map([
  ["\n", "\\n"],
  ["\r", "\\r"],
  ["\t", "\\t"],
]);

/** One character as text: an unsafe one escaped, every other as it is. */
function safeCharacter(c: string): string {
  return unsafe(c) ? (SHORT_ESCAPES.get(c) ?? unicodeEscape(c)) : c;
}

/** One character inside a quoted name: the quote and the backslash escaped too, so the quotes parse back. */
function quotedCharacter(c: string): string {
  return c === '"' || c === "\\" ? `\\${c}` : safeCharacter(c);
}

/** A name in double quotes, every character that could forge a line escaped: a JSON string, it parses back. */
export function quoted(name: string): Words {
  return `"${Array.from(name, quotedCharacter).join("")}"` as Words;
}

/** A name as every output writes it: as it is when plain, else quoted (`quoted`). */
export function nameText(name: string): Words {
  return PLAIN.test(name) ? (name as Words) : quoted(name);
}

/**
 * A resource of a Pulumi program, by its type (a token, or the pack's short kind) and its logical name, always
 * quoted so that it reads as the program's resource and not as an object of the API: `RoleBinding "ci-deployer"`.
 */
export function resourceText(type: string, name: string): Words {
  return `${type} ${quoted(name)}` as Words;
}

/**
 * A capability as given: a well-formed one (`CAP_` and capitals, digits, underscores) as it is, anything else quoted
 * like a name. The service returns capabilities as free strings and an earlier review's file can hold anything, so a
 * capability is data until it has that shape.
 */
export function capabilityText(capability: string): Words {
  return WELL_FORMED_CAPABILITY.test(capability) ? (capability as Words) : nameText(capability);
}

const WELL_FORMED_CAPABILITY = /^CAP_[A-Z0-9_]+$/;

/**
 * How many capabilities a role the reader does not know yet (one the change being read makes or edits) is said with,
 * one by one; a longer list is counted, with its privileged capabilities named.
 */
export const LISTED_CAPABILITIES = 8;

/** How one output writes a role's capabilities: each capability, which are privileged, how a listed one stands out. */
export interface HoldingsStyle {
  capability: (capability: string) => string;
  isPrivileged: (capability: string) => boolean;
  /** A privileged capability in a list, as written: "CAP_IAM_ROLES_CREATE (privileged)". */
  marked: (written: string) => string;
  /** A privileged capability named after a count, as written: "CAP_IAM_ROLES_CREATE". */
  named?: (written: string) => string;
}

/**
 * What a role holds, said after its name: every capability ("2 capabilities: CAP_REPO_LIST, CAP_IAM_ROLES_CREATE
 * (privileged)") when there are at most `listUpTo` (LISTED_CAPABILITIES for a role the reader is told of for the
 * first time, made or edited by the change; 0 for one the reader knows by its name: built-in, unchanged, or said
 * already); otherwise its count and its privileged capabilities ("24 capabilities, 6 privileged:
 * CAP_IAM_ROLES_CREATE, CAP_IAM_ROLE_BINDINGS_CREATE").
 */
export function roleHoldings(
  capabilities: readonly string[],
  listUpTo: number,
  style: HoldingsStyle,
): string {
  const count = countOf(capabilities.length, "capability");
  if (capabilities.length > 0 && capabilities.length <= listUpTo)
    return `${count}: ${capabilities.map((c) => (style.isPrivileged(c) ? style.marked(style.capability(c)) : style.capability(c))).join(", ")}`;
  const privileged = capabilities.filter(style.isPrivileged);
  const named = style.named ?? ((written: string) => written);
  return privileged.length === 0
    ? count
    : `${count}, ${privileged.length} privileged: ${privileged.map((c) => named(style.capability(c))).join(", ")}`;
}

/** The exact name `nameText` (or `quoted`) wrote. */
export function readName(text: string): string {
  return text.startsWith('"') ? (JSON.parse(text) as string) : text;
}

/**
 * Our own words with data in them (an error the service gave, a stack's name, a file) as one line: every unsafe
 * character escaped as in a quoted name, nothing quoted. Names go through `nameText`, which can be read back.
 */
export function lineText(text: string): Words {
  return Array.from(text, safeCharacter).join("") as Words;
}

// ---------------------------------------------------------------------------------------------------------------
// Order.

const NAME_ORDER = new Intl.Collator("en", { numeric: true, sensitivity: "base" });

/**
 * The one order of names in every list of every output: as people sort them, case aside, numbers by value (`team-2`
 * before `team-10`); two names the collator holds equal are then ordered by their code units, so the order is total
 * and the same everywhere.
 */
export function compareNames(a: string, b: string): number {
  return NAME_ORDER.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** Objects by name (`compareNames`), the uid breaking ties. */
export function byName<T extends { name: string; uid: string }>(a: T, b: T): number {
  return compareNames(a.name, b.name) || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);
}

// ---------------------------------------------------------------------------------------------------------------
// Kinds.

/** The kinds of object a person reads by name. */
export type NamedKind = "group" | "identity" | "role";

/** An identity's kind as the review's JSON and CSV give it (data: a versioned format's values). */
export type IdentityKind = "person" | "workload";

/** A root-level identity (no parent group) is a person's; one under a group is a workload's. */
export function identityKind(uid: string): IdentityKind {
  return isRoot(uid) ? "person" : "workload";
}

/** How prose says each `IdentityKind`. */
export const IDENTITY_NOUNS: Readonly<Record<IdentityKind, string>> = {
  person: COLLECTIONS.identities.noun.root,
  workload: COLLECTIONS.identities.noun.under,
};

/** The collection (../sdk/collections) of each kind a person reads by name. */
export const NAMED_COLLECTIONS = {
  group: "groups",
  identity: "identities",
  role: "roles",
} as const satisfies Readonly<Record<NamedKind, CollectionName>>;

/** What an object of `kind` with this uid is called: root-level or under a group (../sdk/collections). */
const NOUNS: Readonly<Record<NamedKind, { root: string; under: string }>> = {
  group: COLLECTIONS.groups.noun,
  identity: COLLECTIONS.identities.noun,
  role: COLLECTIONS.roles.noun,
};

/** "organization", "folder", "user", "workload identity", "built-in role", "role". */
export function nounOf(kind: NamedKind, uid: string): Words {
  const nouns = NOUNS[kind];
  return (isRoot(uid) ? nouns.root : nouns.under) as Words;
}

/** "users", "workload identities": a noun's plural. */
export function pluralOf(noun: string): Words {
  return (/[^aeiou]y$/.test(noun) ? `${noun.slice(0, -1)}ies` : `${noun}s`) as Words;
}

/** "1 user", "2 users", "3 workload identities": a count of a noun. */
export function countOf(n: number, noun: string): Words {
  return `${n} ${n === 1 ? noun : pluralOf(noun)}` as Words;
}

/**
 * " and the 3 folders under it" (nothing for none): the groups under a group that a grant there reaches, or that
 * change the same way (every group under another is a folder).
 */
export const andFoldersUnder = (n: number): string =>
  n === 0 ? "" : ` and the ${countOf(n, NOUNS.group.under)} under it`;

// ---------------------------------------------------------------------------------------------------------------
// Names.

/**
 * The names one output uses, by kind: made from everything it may mention, so that a name is told apart from every
 * other of the same noun there ("folder platform" from another "folder platform"; a "role viewer" and the "built-in
 * role viewer" are apart already). Names are data, kept in `Map`s (a name or uid such as `__proto__` is a key like
 * any).
 */
export class Names {
  private readonly names = new Map<NamedKind, Map<string, string>>();
  /** How many objects of a noun hold each name (keyed by noun and name). */
  private readonly holders = new Map<string, number>();
  /** What tells an object apart from another of the same name, where not its uid (an object not made yet). */
  private readonly tells = new Map<string, string>();

  /** Learns `uid`'s name unless one is known (give the best source first). An empty name, or the uid, is none. */
  add(kind: NamedKind, uid: string, name: string | undefined): this {
    if (!this.table(kind).has(uid)) this.set(kind, uid, name);
    return this;
  }

  /** Learns `uid`'s name over any known (an object's own name wins over what a binding says of it). */
  set(kind: NamedKind, uid: string, name: string | undefined): this {
    if (name === undefined || name === "" || name === uid) return this;
    const names = this.table(kind);
    const before = names.get(uid);
    if (before === name) return this;
    if (before !== undefined) this.count(kind, uid, before, -1);
    names.set(uid, name);
    this.count(kind, uid, name, 1);
    return this;
  }

  /** Says what tells `uid` apart from another of its name instead of its uid (`tell` is written as it is). */
  tellApartBy(kind: NamedKind, uid: string, tell: string): this {
    this.tells.set(`${kind}\u0000${uid}`, tell);
    return this;
  }

  /** The name known for `uid`, as the service gave it. */
  nameOf(kind: NamedKind, uid: string): string | undefined {
    return this.names.get(kind)?.get(uid);
  }

  known(kind: NamedKind, uid: string): boolean {
    return this.nameOf(kind, uid) !== undefined;
  }

  /** Whether another object of the same noun has the same name. */
  shared(kind: NamedKind, uid: string): boolean {
    const name = this.nameOf(kind, uid);
    return name !== undefined && (this.holders.get(holderKey(kind, uid, name)) ?? 0) > 1;
  }

  /** The name alone, written (`nameText`): with what tells it apart when shared; the uid where none is known. */
  name(kind: NamedKind, uid: string): Words {
    return this.written(kind, uid, nameText) as Words;
  }

  /** The same, unescaped: for a format that escapes it as its own (HTML), never for text. */
  rawName(kind: NamedKind, uid: string): string {
    return this.written(kind, uid, (text) => text);
  }

  /** The name with its kind: "folder platform", "workload identity ci", "built-in role viewer". */
  named(kind: NamedKind, uid: string): Words {
    return `${nounOf(kind, uid)} ${this.name(kind, uid)}` as Words;
  }

  group(uid: string): Words {
    return this.named("group", uid);
  }

  identity(uid: string): Words {
    return this.named("identity", uid);
  }

  role(uid: string): Words {
    return this.named("role", uid);
  }

  private written(kind: NamedKind, uid: string, write: (text: string) => string): string {
    const name = this.nameOf(kind, uid);
    if (name === undefined) return write(uid);
    if (!this.shared(kind, uid)) return write(name);
    return `${write(name)} (${this.tells.get(`${kind}\u0000${uid}`) ?? write(uid)})`;
  }

  private table(kind: NamedKind): Map<string, string> {
    let table = this.names.get(kind);
    if (table === undefined) this.names.set(kind, (table = new Map()));
    return table;
  }

  private count(kind: NamedKind, uid: string, name: string, by: number): void {
    const key = holderKey(kind, uid, name);
    this.holders.set(key, (this.holders.get(key) ?? 0) + by);
  }
}

const holderKey = (kind: NamedKind, uid: string, name: string) => `${nounOf(kind, uid)}\u0000${name}`;

/** What an object of `kind` made under a group is called: "folder", "workload identity", "role". */
export const nounUnder = (kind: NamedKind): Words => NOUNS[kind].under as Words;

/**
 * A noun with its indefinite article, by how it is said: "an identity", "an account association", "a group", "a
 * user" (a "u" said as "you": before a consonant and a vowel, or in "uid").
 */
export function withArticle(noun: string): string {
  const vowelSound = /^[aeio]/i.test(noun) || (/^u/i.test(noun) && !/^u(?:[^aeiou][aeiou]|id\b)/i.test(noun));
  return `${vowelSound ? "an" : "a"} ${noun}`;
}

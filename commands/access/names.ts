/**
 * How the access tools name what they show: identities, groups and roles by name, an identity's kind where it
 * helps, and the uid only to tell apart two that share a name, or when no name is known. One `Names` per output,
 * made from everything the output may mention (both reviews, for the changes between them), so a name is told
 * apart from every other it could be confused with there.
 *
 * Names come from the API: they are data. The display strings here are plain text; each format escapes them where
 * it writes them (`printable` for text and logs, commands/markdown for Markdown, HTML escaping for the page).
 *
 * May import: nothing.
 */

/** Something with a uid and a name (the name may be missing or empty when the caller cannot read it). */
export interface Named {
  uid: string;
  name?: string | undefined;
}

export type IdentityKind = "person" | "workload";

/** Root-level users (no parent) are people; identities under a group are workloads. */
export function identityKind(uid: string): IdentityKind {
  return uid.includes("/") ? "workload" : "person";
}

/** One kind of object's names: the name alone when it is unique, "name (uid)" when shared, the uid when unknown. */
class Namespace {
  private readonly names = new Map<string, string>();
  private readonly uidsByName = new Map<string, Set<string>>();

  add(item: Named): void {
    if (item.name === undefined || item.name === "" || this.names.has(item.uid)) return;
    this.names.set(item.uid, item.name);
    const uids = this.uidsByName.get(item.name) ?? new Set<string>();
    uids.add(item.uid);
    this.uidsByName.set(item.name, uids);
  }

  /** The name as known, or undefined. */
  nameOf(uid: string): string | undefined {
    return this.names.get(uid);
  }

  display(uid: string): string {
    const name = this.names.get(uid);
    if (name === undefined) return uid;
    return (this.uidsByName.get(name)?.size ?? 0) > 1 ? `${name} (${uid})` : name;
  }
}

export interface NameSources {
  identities?: readonly Named[];
  groups?: readonly Named[];
  roles?: readonly Named[];
}

/** The names an output uses; the first source to name a uid wins (give the newest first). */
export class Names {
  private readonly identities = new Namespace();
  private readonly groups = new Namespace();
  private readonly roles = new Namespace();

  constructor(...sources: NameSources[]) {
    for (const s of sources) {
      for (const i of s.identities ?? []) this.identities.add(i);
      for (const g of s.groups ?? []) this.groups.add(g);
      for (const r of s.roles ?? []) this.roles.add(r);
    }
  }

  /** An identity: its name, "name (uid)" when another shares it, the uid when no name is known. */
  identity(uid: string): string {
    return this.identities.display(uid);
  }

  /** An identity with its kind: "ci (workload)", "ci (workload, <uid>)" when another shares the name. */
  identityWithKind(uid: string): string {
    const display = this.identities.display(uid);
    const name = this.identities.nameOf(uid);
    if (name === undefined) return `${uid} (${identityKind(uid)})`;
    return display === name ? `${name} (${identityKind(uid)})` : `${name} (${identityKind(uid)}, ${uid})`;
  }

  group(uid: string): string {
    return this.groups.display(uid);
  }

  role(uid: string): string {
    return this.roles.display(uid);
  }

  /** The name known for each kind, or "" (for the name columns of CSV and the JSON's names beside uids). */
  identityName(uid: string): string {
    return this.identities.nameOf(uid) ?? "";
  }
  groupName(uid: string): string {
    return this.groups.nameOf(uid) ?? "";
  }
  roleName(uid: string): string {
    return this.roles.nameOf(uid) ?? "";
  }
}

/**
 * Text as one line of a terminal or a log: a control character (a line break, a tab, an escape sequence) in a name
 * is shown as its escape (`\n`, `\u001b`), so a name cannot start a line of its own or move the cursor.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) =>
    c === "\n"
      ? "\\n"
      : c === "\t"
        ? "\\t"
        : c === "\r"
          ? "\\r"
          : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

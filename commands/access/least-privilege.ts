/**
 * The least privilege of a stack: the smallest set of capabilities, per group, that the identity running it needs
 * to `pulumi up` it from empty, `pulumi refresh` it and `pulumi destroy` it (`pulumi preview` reads nothing), worked
 * out from the resources in its exported state through the access model's `needsOf` (sdk/access-model.ts, rules 4
 * and 5): creating an object needs `*_CREATE` on the group it is created under, reading it `*_LIST` where it lives,
 * deleting it `*_LIST` and `*_DELETE`; and no escalation: binding role R on G (or inviting with R, or an identity
 * provider whose default role is R, or a custom role holding capabilities) needs R's capabilities on G.
 *
 * Minimised, and the choice documented (docs/access-review.md):
 *   - a need on a group the stack itself creates is moved up to the nearest group the stack does not create (a
 *     binding cannot be made on a group before the group exists, and the stack's destroy deletes it);
 *   - a capability needed on G and on a group below G is granted once, at G: one binding at G covers both, and a
 *     role cannot be narrower than "G and below" anyway;
 *   - groups needing the same set share one custom role (one Role per distinct set, bound where it is needed).
 * Changes of existing resources need `*_UPDATE` too: only with `withUpdate` (a stack deployed from its program
 * creates, reads and deletes; it updates only when the program changes).
 *
 * Data sources are not in a state: what they read (`getRepos` needs CAP_REPO_LIST, ...) is added with `extra`.
 */
import { needsOf, type Collection, type Need, type Operation } from "../../sdk/access-model";
import { IMPORT_KINDS, LISTED_KINDS, type ListedKind } from "../kinds";
import { tokenOf } from "../states";
import { Refusal } from "../command";
import { commonAncestorOf, isBelow, parentOf } from "../../sdk/uidp";

/** The collection of the API each kind of resource is an object of. */
export const COLLECTION: Readonly<Record<ListedKind, Collection>> = {
  group: "groups",
  identity: "identities",
  role: "roles",
  roleBinding: "roleBindings",
  identityProvider: "identityProviders",
  groupInvite: "groupInvites",
  accountAssociation: "accountAssociations",
};

/** A resource of the state, as the needs see it. */
export interface StackObject {
  kind: ListedKind;
  uid: string;
  urn: string;
  /** The group it is created under. */
  parent: string;
  /** The role it grants (a binding's, an invite's, a provider's default), if any. */
  grantsRole?: string;
  /** The capabilities a custom role holds. */
  capabilities?: string[];
}

const byToken = new Map<string, ListedKind>(LISTED_KINDS.map((kind) => [IMPORT_KINDS[kind].token, kind]));

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** The objects of this package's resources in an exported state (external and pending-delete ones left out). */
export function stackObjects(text: string, file: string): { objects: StackObject[]; notes: string[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Refusal(`${file} is not a Pulumi state export: it is not JSON`);
  }
  const resources = (parsed as { deployment?: { resources?: unknown } } | null)?.deployment?.resources;
  if (!Array.isArray(resources))
    throw new Refusal(`${file} is not a Pulumi state export: it has no "deployment.resources" list`);
  const objects: StackObject[] = [];
  const notes: string[] = [];
  for (const r of resources as Record<string, unknown>[]) {
    if (r.external === true || r.delete === true) continue;
    const token = tokenOf(r as { type?: string; inputs?: Record<string, unknown> });
    if (token === undefined) continue;
    const kind = byToken.get(token);
    const urn = str(r.urn) ?? "";
    const id = str(r.id);
    if (kind === undefined || id === undefined) {
      notes.push(`${urn || token}: ${token} is not counted (its needs are not derived from a state)`);
      continue;
    }
    const props = {
      ...(r.inputs as Record<string, unknown> | undefined),
      ...(r.outputs as Record<string, unknown> | undefined),
    };
    const parent = kind === "accountAssociation" ? id : (parentOf(id) ?? "");
    const grantsRole =
      kind === "roleBinding" || kind === "groupInvite"
        ? str(props.roleUid)
        : kind === "identityProvider"
          ? str(props.defaultRole)
          : undefined;
    const capabilities =
      kind === "role" && Array.isArray(props.capabilities)
        ? props.capabilities.filter((c): c is string => typeof c === "string")
        : undefined;
    objects.push({
      kind,
      uid: id,
      urn,
      parent,
      ...(grantsRole !== undefined ? { grantsRole } : {}),
      ...(capabilities !== undefined ? { capabilities } : {}),
    });
  }
  return { objects, notes };
}

export interface LeastPrivilegeOptions {
  /** Capabilities of roles the state does not hold (built-in ones, others'), read from the API. */
  roleCapabilities: (roleUid: string) => readonly string[] | undefined;
  /** Add *_UPDATE (changes of existing resources). */
  withUpdate?: boolean;
  /** Needs the state cannot show (data sources), e.g. CAP_REPO_LIST on the organization. */
  extra?: Need[];
}

/** A custom role and the groups to bind it on. */
export interface LeastRole {
  name: string;
  /** The group the role is created in: the common ancestor of where it is bound. */
  parentUid: string;
  capabilities: string[];
  bindOn: string[];
}

export interface LeastPrivilege {
  /** Every need, before minimising: capability, group, reason. */
  needs: Need[];
  /** After minimising: per group, the capabilities granted there. */
  grants: { group: string; capabilities: string[] }[];
  roles: LeastRole[];
  notes: string[];
}

/** The operations of the stack's life from empty: up (create), refresh (read), destroy (delete); update if asked. */
function operationsOf(o: StackObject, capabilitiesOf: (role: string) => readonly string[] | undefined) {
  const collection = COLLECTION[o.kind];
  const granted =
    o.capabilities ?? (o.grantsRole !== undefined ? capabilitiesOf(o.grantsRole) : undefined) ?? [];
  const what =
    o.kind === "role"
      ? `the capabilities of role ${o.uid}`
      : o.grantsRole
        ? `role ${o.grantsRole}`
        : undefined;
  const create: Operation = {
    verb: "CREATE",
    collection,
    parent: o.parent,
    grants: granted,
    ...(what !== undefined ? { grantsWhat: what } : {}),
  };
  return {
    create,
    read: { verb: "LIST", collection, uid: o.uid } as Operation,
    remove: { verb: "DELETE", collection, uid: o.uid } as Operation,
    update: {
      verb: "UPDATE",
      collection,
      uid: o.uid,
      grants: granted,
      ...(what !== undefined ? { grantsWhat: what } : {}),
    } as Operation,
  };
}

/** The nearest group at or above `group` the stack does not create. */
function anchor(group: string, created: ReadonlySet<string>): string {
  let g = group;
  for (let parent = parentOf(g); created.has(g) && parent !== undefined; parent = parentOf(g)) g = parent;
  return g;
}

/** The least privilege of the objects of a stack. */
export function leastPrivilege(objects: StackObject[], options: LeastPrivilegeOptions): LeastPrivilege {
  const notes: string[] = [];
  const stateRoles = new Map(
    objects.filter((o) => o.kind === "role").map((o) => [o.uid, o.capabilities ?? []] as const),
  );
  const capabilitiesOf = (role: string): readonly string[] | undefined => {
    const found = stateRoles.get(role) ?? options.roleCapabilities(role);
    if (found === undefined)
      notes.push(
        `role ${role} is not visible to these credentials: the capabilities binding it needs are not counted`,
      );
    return found;
  };
  const needs: Need[] = [];
  for (const o of objects) {
    const ops = operationsOf(o, capabilitiesOf);
    for (const op of [ops.create, ops.read, ops.remove, ...(options.withUpdate ? [ops.update] : [])])
      needs.push(...needsOf(op));
  }
  needs.push(...(options.extra ?? []));

  // Lift each need to a group the stack does not create, then keep only the topmost group per capability.
  const created = new Set(objects.filter((o) => o.kind === "group").map((o) => o.uid));
  const where = new Map<string, Set<string>>();
  for (const need of needs) {
    const at = anchor(need.group, created);
    const set = where.get(need.capability) ?? new Set<string>();
    set.add(at);
    where.set(need.capability, set);
  }
  const perGroup = new Map<string, string[]>();
  for (const [capability, groups] of where) {
    for (const g of groups) {
      const covered = [...groups].some((other) => isBelow(g, other));
      if (covered) continue;
      perGroup.set(g, [...(perGroup.get(g) ?? []), capability]);
    }
  }
  const grants = [...perGroup.entries()]
    .map(([group, caps]) => ({ group, capabilities: [...new Set(caps)].sort() }))
    .sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));

  // One role per distinct set, created where all its bindings can see it (their common ancestor).
  const bySet = new Map<string, string[]>();
  for (const g of grants) {
    const key = g.capabilities.join(" ");
    bySet.set(key, [...(bySet.get(key) ?? []), g.group]);
  }
  const roles: LeastRole[] = [...bySet.entries()].map(([key, groups], i) => ({
    name: bySet.size === 1 ? "stack-deployer" : `stack-deployer-${i + 1}`,
    parentUid: commonAncestorOf(groups),
    capabilities: key.split(" "),
    bindOn: groups,
  }));
  return { needs, grants, roles, notes: [...new Set(notes)] };
}

/** `CAP_X@group` → a need (the --need flag). */
export function parseNeed(text: string): Need {
  const match = /^(CAP_[A-Z0-9_]+)@([0-9a-f/]+)$/.exec(text);
  if (match === null)
    throw new Refusal(
      `--need is CAPABILITY@GROUP, e.g. CAP_REPO_LIST@<org uid>, not ${JSON.stringify(text)}`,
    );
  return { capability: match[1]!, group: match[2]!, reason: "given with --need" };
}

const IDENTITY_PLACEHOLDER = "deployerIdentityUid";

/** The roles and bindings as a Pulumi YAML program's resources. */
export function leastPrivilegeYaml(lp: LeastPrivilege, identity?: string): string {
  const id = identity !== undefined ? JSON.stringify(identity) : `\${${IDENTITY_PLACEHOLDER}}`;
  const lines = [
    "# The least privilege of the stack (platform-access least-privilege): a custom role per distinct set of",
    "# capabilities, bound where it is needed. Bind it to the identity that runs the stack.",
    ...(identity === undefined
      ? ["config:", `  ${IDENTITY_PLACEHOLDER}:`, "    type: string", "variables: {}"]
      : []),
    "resources:",
  ];
  lp.roles.forEach((role, i) => {
    const r = `stackDeployerRole${i + 1}`;
    lines.push(
      `  ${r}:`,
      "    type: platform:iam:Role",
      "    properties:",
      `      parentUid: ${JSON.stringify(role.parentUid)}`,
      `      name: ${JSON.stringify(role.name)}`,
      "      capabilities:",
      ...role.capabilities.map((c) => `        - ${c}`),
    );
    role.bindOn.forEach((group, j) => {
      lines.push(
        `  stackDeployerBinding${i + 1}x${j + 1}:`,
        "    type: platform:iam:RoleBinding",
        "    properties:",
        `      groupUid: ${JSON.stringify(group)}`,
        `      identityUid: ${id}`,
        `      roleUid: \${${r}.uid}`,
      );
    });
  });
  return `${lines.join("\n")}\n`;
}

/** The roles and bindings as a TypeScript Pulumi program snippet. */
export function leastPrivilegeTypeScript(lp: LeastPrivilege, identity?: string): string {
  const lines = [
    'import * as pulumi from "@pulumi/pulumi";',
    'import * as platform from "pulumi-platform";',
    "",
    "// The least privilege of the stack (platform-access least-privilege).",
    identity !== undefined
      ? `const identityUid = ${JSON.stringify(identity)};`
      : `const identityUid = new pulumi.Config().require("${IDENTITY_PLACEHOLDER}");`,
  ];
  lp.roles.forEach((role, i) => {
    lines.push(
      `const role${i + 1} = new platform.iam.Role(${JSON.stringify(role.name)}, {`,
      `  parentUid: ${JSON.stringify(role.parentUid)},`,
      `  name: ${JSON.stringify(role.name)},`,
      `  capabilities: [${role.capabilities.map((c) => JSON.stringify(c)).join(", ")}],`,
      "});",
    );
    role.bindOn.forEach((group, j) => {
      lines.push(
        `new platform.iam.RoleBinding(${JSON.stringify(`${role.name}-${j + 1}`)}, {`,
        `  groupUid: ${JSON.stringify(group)},`,
        "  identityUid,",
        `  roleUid: role${i + 1}.uid,`,
        "});",
      );
    });
  });
  return `${lines.join("\n")}\n`;
}

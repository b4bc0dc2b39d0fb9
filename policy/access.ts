/**
 * The stack's own access, as the shared access model (../sdk/access-model.ts) computes it: who would hold which
 * capability on which group through the bindings the stack declares. The pack sees resources' inputs only (never
 * the results of data sources such as getRole), so it builds the model from what the stack itself says:
 *
 *   - groups: a group's uid, or, before the service assigns one (a preview), a stand-in position under its parent
 *     (`<parent uid>/~<name>`), so "below" still holds;
 *   - identities: the stack's Identity resources (and literal identity uids, positioned by their parent);
 *   - roles: a custom Role of the stack (its `capabilities`), or a built-in role the pack can name from its uid
 *     (the emulator's built-in uids, and the uids configured in `ownerRoleUids`); any other role's capabilities are
 *     unknown, and the rules say so instead of guessing (../docs/policy-pack.md, "How the pack knows a role");
 *   - identity providers: each IdentityProvider of the stack gives its `defaultRole` to whoever signs in through it,
 *     on its organization, so it holds that role there as an identity would.
 */
import type { PolicyResource } from "@pulumi/policy";
import { AccessModel, type BindingFacts, type RoleFacts } from "../sdk/access-model";
import { BUILTIN_ROLES } from "../emulator/builtin-roles";
import { type Maybe, UNKNOWN, describe, known, text } from "./resources";
import { type Binding, type Reference, bindingsOf, field, ofKind, reference, resolve } from "./stack";

/** The built-in role uids a name is known by: the emulator's, and the configured owner uids. */
export function builtinRoleNamed(uid: string, ownerRoleUids: readonly string[]): RoleFacts | undefined {
  const owner = BUILTIN_ROLES.find((r) => r.name === "owner");
  if (owner !== undefined && ownerRoleUids.includes(uid)) return { ...owner, uid };
  const builtin = BUILTIN_ROLES.find((r) => r.uid === uid);
  return builtin === undefined ? undefined : { ...builtin };
}

/** How an identity is assumed, for the workload kinds: a token of an issuer, a key, an AWS principal. */
const WORKLOAD_KINDS = ["claimMatch", "staticKeys", "awsIdentity"] as const;

/** Is this Identity a workload identity (claimMatch, staticKeys or awsIdentity)? Unknown kinds count as one. */
export function isWorkload(identity: PolicyResource): boolean {
  return WORKLOAD_KINDS.some((kind) => {
    const value = known(() => identity.props[kind] as unknown);
    return value === UNKNOWN || (typeof value === "object" && value !== null);
  });
}

/** One principal the model knows: an identity, or an identity provider's signed-in users. */
export interface Principal {
  key: string;
  kind: "identities" | "identityProviders";
  /** A uid for the model's operations: the real one, or a stand-in under the principal's position. */
  uid: string;
  label: string;
  /** The stack's resource, when it is one. */
  resource: PolicyResource | undefined;
}

/** A binding the model counts, with where the stack declares it. */
export interface ModelBinding extends BindingFacts {
  /** The binding resource (or identity provider) and the field prefix of the entry. */
  resource: PolicyResource;
  at: string;
  /** The field naming the role: `roleUid` or an identity provider's `defaultRole`. */
  roleField: string;
}

/** A role whose capabilities the pack cannot know, and the bindings naming it. */
export interface UnknownRole {
  uid: string;
  bindings: ModelBinding[];
}

export interface StackAccess {
  model: AccessModel;
  principals: Map<string, Principal>;
  bindings: Map<string, ModelBinding>;
  /** Group positions' labels for messages: "Group 'deploy'" or "group <uid>". */
  groupLabel(position: string): string;
  roleLabel(roleKey: string): string;
  unknownRoles: UnknownRole[];
}

const STAND_IN = "~";

/** Reads the stack's access into the shared model. */
export function stackAccess(
  resources: readonly PolicyResource[],
  ownerRoleUids: readonly string[],
): StackAccess {
  const groups = ofKind(resources, "Group");
  const groupLabels = new Map<string, string>();
  const standIn = (name: string) => STAND_IN + encodeURIComponent(name);

  /** A group's position: its uid, or a stand-in under its parent's position; undefined when it cannot be placed. */
  const positionOf = (ref: Reference, depth = 0): string | undefined => {
    const [uid, dependencies] = ref;
    if (typeof uid === "string") return uid;
    const group = resolve(uid, dependencies, groups);
    if (group === undefined || depth > 64) return undefined;
    const parent = reference(group, "parentUid");
    if (parent[0] === UNKNOWN && resolve(...parent, groups) === undefined) return undefined;
    const above = parent[0] === undefined ? "" : positionOf(parent, depth + 1);
    if (above === undefined) return undefined;
    const position = above === "" ? standIn(group.name) : `${above}/${standIn(group.name)}`;
    groupLabels.set(position, describe(group.name, group.type));
    return position;
  };

  const principals = new Map<string, Principal>();
  const principalOf = (binding: Binding): Principal | undefined => {
    if (binding.identity !== undefined) {
      const identity = binding.identity;
      const existing = principals.get(identity.urn);
      if (existing !== undefined) return existing;
      const uid = known(() => text(identity.props.uid));
      const parent = positionOf(reference(identity, "parentUid"));
      const modelUid =
        typeof uid === "string"
          ? uid
          : parent === undefined
            ? undefined
            : `${parent}/${standIn(identity.name)}`;
      if (modelUid === undefined) return undefined;
      const principal: Principal = {
        key: identity.urn,
        kind: "identities",
        uid: modelUid,
        label: describe(identity.name, identity.type),
        resource: identity,
      };
      principals.set(principal.key, principal);
      return principal;
    }
    if (typeof binding.identityUid !== "string") return undefined;
    const uid = binding.identityUid;
    const principal = principals.get(uid) ?? {
      key: uid,
      kind: "identities",
      uid,
      label: `identity ${uid}`,
      resource: undefined,
    };
    principals.set(uid, principal);
    return principal;
  };

  const roles = new Map<string, RoleFacts>();
  const roleLabels = new Map<string, string>();
  const unknown = new Map<string, ModelBinding[]>();
  /** The model's key of a binding's role, or the role's uid as unknown, or undefined (not known yet). */
  const roleOf = (
    roleUid: Maybe<string | undefined>,
    role: PolicyResource | undefined,
  ): { key: string } | { unknownUid: string } | undefined => {
    if (role !== undefined) {
      const capabilities = known(() => role.props.capabilities as unknown);
      if (!Array.isArray(capabilities)) return undefined; // not known yet: checked again at `up`
      const strings = capabilities.filter((c): c is string => typeof c === "string");
      roles.set(role.urn, { uid: role.urn, name: role.name, capabilities: strings });
      roleLabels.set(role.urn, describe(role.name, role.type));
      return { key: role.urn };
    }
    if (typeof roleUid !== "string") return undefined;
    const builtin = builtinRoleNamed(roleUid, ownerRoleUids);
    if (builtin === undefined) return { unknownUid: roleUid };
    roles.set(roleUid, builtin);
    roleLabels.set(roleUid, `built-in role ${builtin.name ?? roleUid}`);
    return { key: roleUid };
  };

  const bindings = new Map<string, ModelBinding>();
  const add = (
    principal: Principal | undefined,
    position: string | undefined,
    role: ReturnType<typeof roleOf>,
    where: { resource: PolicyResource; at: string; roleField: string },
  ) => {
    if (principal === undefined || position === undefined || role === undefined) return;
    const uid = `${where.resource.urn}#${where.at}${where.roleField}`;
    const binding: ModelBinding = { uid, group: position, identity: principal.key, role: "", ...where };
    if ("unknownUid" in role) {
      const list = unknown.get(role.unknownUid) ?? [];
      list.push({ ...binding, role: role.unknownUid });
      unknown.set(role.unknownUid, list);
      return;
    }
    bindings.set(uid, { ...binding, role: role.key });
  };

  for (const binding of bindingsOf(resources)) {
    add(principalOf(binding), positionOf(binding.group), roleOf(binding.roleUid, binding.role), {
      resource: binding.resource,
      at: binding.at,
      roleField: "roleUid",
    });
  }
  const roleResources = ofKind(resources, "Role");
  for (const provider of ofKind(resources, "IdentityProvider")) {
    const organization = positionOf(reference(provider, "parentUid"));
    if (organization === undefined) continue;
    const uid = field(provider.props, "uid");
    const principal: Principal = {
      key: provider.urn,
      kind: "identityProviders",
      uid: typeof uid === "string" ? uid : `${organization}/${standIn(provider.name)}`,
      label: describe(provider.name, provider.type),
      resource: provider,
    };
    principals.set(principal.key, principal);
    const defaultRole = reference(provider, "defaultRole");
    add(principal, organization, roleOf(defaultRole[0], resolve(...defaultRole, roleResources)), {
      resource: provider,
      at: "",
      roleField: "defaultRole",
    });
  }

  return {
    model: new AccessModel({ roles: roles.values(), bindings: bindings.values() }),
    principals,
    bindings,
    groupLabel: (position) => groupLabels.get(position) ?? `group ${position}`,
    roleLabel: (key) => roleLabels.get(key) ?? `role ${key}`,
    unknownRoles: [...unknown].map(([uid, list]) => ({ uid, bindings: list })),
  };
}

/**
 * How the stack rules read a stack: the bindings it declares (each RoleBinding, and each entry of a GroupAccess or
 * IdentityAccess) with the identities, roles and groups they reference, resolved to the stack's resources through
 * the program's references when a uid is not known yet (a preview).
 */
import type { PolicyResource } from "@pulumi/policy";
import { type ResourceKind, type Maybe, UNKNOWN, kindOf, known, text } from "./resources";
import { isRoot as isRootUid } from "../sdk/uidp";

type Props = Record<string, unknown>;

/** A reference field: its value (a uid, unknown at preview, or absent) and the resources it depends on. */
export type Reference = [Maybe<string | undefined>, PolicyResource[] | undefined];

/** What a stack rule knows about one binding: the resources and values it references, where known. */
export interface Binding {
  resource: PolicyResource;
  /** An Identity of this stack, when the binding's identity is one. */
  identity: PolicyResource | undefined;
  identityUid: Maybe<string | undefined>;
  roleUid: Maybe<string | undefined>;
  /** A custom Role of this stack, when the binding's role is one. */
  role: PolicyResource | undefined;
  group: Reference;
  atRoot: Maybe<boolean>;
  /** Where its fields are in the resource: "" for a RoleBinding, "bindings[i]." for an access set's entry. */
  at: string;
}

export function ofKind(resources: readonly PolicyResource[], kind: ResourceKind): PolicyResource[] {
  return resources.filter((r) => kindOf(r.type) === kind);
}

/**
 * The stack's resource a uid names: by the uid when it is known, else (a preview) the one candidate among the
 * resources the field depends on, as the program recorded them. Undefined when it is not in the stack, or when
 * several candidates leave it open (an access set's bindings share one dependency list).
 */
export function resolve(
  uid: Maybe<string | undefined>,
  dependencies: readonly PolicyResource[] | undefined,
  candidates: readonly PolicyResource[],
): PolicyResource | undefined {
  if (uid === undefined) return undefined;
  if (uid !== UNKNOWN) return candidates.find((c) => known(() => text(c.props.uid)) === uid);
  const among = candidates.filter((c) => (dependencies ?? []).some((d) => d.urn === c.urn));
  return among.length === 1 ? among[0] : undefined;
}

/** Whether a group is an organization root: a uid without "/", or a Group of the stack without parentUid. */
function isRoot(
  groupUid: Maybe<string | undefined>,
  dependencies: readonly PolicyResource[] | undefined,
  groups: readonly PolicyResource[],
): Maybe<boolean> {
  if (typeof groupUid === "string") return isRootUid(groupUid);
  const group = resolve(groupUid, dependencies, groups);
  if (group === undefined) return UNKNOWN;
  const parent = known(() => text(group.props.parentUid));
  return parent === UNKNOWN ? UNKNOWN : parent === undefined;
}

export const field = (props: Props, key: string): Maybe<string | undefined> => known(() => text(props[key]));

/** A field of a resource with the resources its value depends on. */
export const reference = (resource: PolicyResource, key: string): Reference => [
  field(resource.props, key),
  resource.propertyDependencies?.[key],
];

/** The entries of an access set's `bindings` with their indexes; entries not known yet are skipped. */
function entriesOf(resource: PolicyResource): Array<[Props, number]> {
  const bindings = known(() => resource.props.bindings);
  if (!Array.isArray(bindings)) return [];
  const entries: Array<[Props, number]> = [];
  for (let i = 0; i < bindings.length; i++) {
    const entry = known(() => bindings[i] as unknown);
    if (typeof entry === "object" && entry !== null) entries.push([entry as Props, i]);
  }
  return entries;
}

/**
 * Every binding the stack declares: each RoleBinding, and each entry of a GroupAccess (bindings of identities on
 * its group) or an IdentityAccess (bindings of its identity on groups).
 */
export function bindingsOf(resources: readonly PolicyResource[]): Binding[] {
  const identities = ofKind(resources, "Identity");
  const roles = ofKind(resources, "Role");
  const groups = ofKind(resources, "Group");
  const binding = (
    resource: PolicyResource,
    identityUid: Reference,
    roleUid: Reference,
    groupUid: Reference,
    at = "",
  ): Binding => ({
    resource,
    identity: resolve(...identityUid, identities),
    identityUid: identityUid[0],
    roleUid: roleUid[0],
    role: resolve(...roleUid, roles),
    group: groupUid,
    atRoot: isRoot(...groupUid, groups),
    at,
  });
  return resources.flatMap((resource): Binding[] => {
    const deps = (key: string) => resource.propertyDependencies?.[key];
    switch (kindOf(resource.type)) {
      case "RoleBinding":
        return [
          binding(
            resource,
            reference(resource, "identityUid"),
            reference(resource, "roleUid"),
            reference(resource, "groupUid"),
          ),
        ];
      case "GroupAccess":
        return entriesOf(resource).map(([entry, i]) => {
          const own = field(entry, "groupUid");
          return binding(
            resource,
            [field(entry, "identityUid"), deps("bindings")],
            [field(entry, "roleUid"), deps("bindings")],
            own === undefined ? reference(resource, "groupUid") : [own, deps("bindings")],
            `bindings[${i}].`,
          );
        });
      case "IdentityAccess":
        return entriesOf(resource).map(([entry, i]) =>
          binding(
            resource,
            reference(resource, "identityUid"),
            [field(entry, "roleUid"), deps("bindings")],
            [field(entry, "groupUid"), deps("bindings")],
            `bindings[${i}].`,
          ),
        );
      default:
        return [];
    }
  });
}

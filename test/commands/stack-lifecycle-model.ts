/**
 * A test oracle: what the access model says of a stack's life under a proposed least privilege. Written apart from
 * commands/access/least-privilege.ts on purpose, from what the engine does with a stack deployed from empty:
 * `pulumi up` creates each object under its parent (granting what it grants: a custom role its capabilities, a
 * binding, invite or identity provider its role's), `pulumi refresh` reads each, `pulumi destroy` deletes each; what
 * data sources read comes as needs beside them. An identity bound to the proposed roles, where they say, is refused
 * exactly the needs the model's `unmetNeeds` reports (and test/emulator/access-model.property.test.ts shows that the
 * emulator refuses exactly those).
 */
import { AccessModel, capabilitiesOn, unmetNeeds, type Need, type Operation } from "../../sdk/access-model";
import { COLLECTION, type LeastPrivilege, type StackObject } from "../../commands/access/least-privilege";

/** A step of the stack's life, in order; data sources are read from the first (preview) on. */
export type Step = "preview" | "up" | "refresh" | "destroy";

/** The operations of the stack's life from empty: every create (up), then every read (refresh), every delete. */
export function lifecycleOperations(
  objects: readonly StackObject[],
  roleCapabilities: (roleUid: string) => readonly string[] | undefined,
): { step: Step; operation: Operation }[] {
  const ownRoles = new Map(
    objects.filter((o) => o.kind === "role").map((o) => [o.uid, o.capabilities ?? []]),
  );
  const granted = (o: StackObject): readonly string[] =>
    o.kind === "role"
      ? (o.capabilities ?? [])
      : o.grantsRole === undefined
        ? []
        : (ownRoles.get(o.grantsRole) ?? roleCapabilities(o.grantsRole) ?? []);
  const collection = (o: StackObject) => COLLECTION[o.kind];
  return [
    ...objects.map((o) => ({
      step: "up" as const,
      operation: {
        verb: "CREATE",
        collection: collection(o),
        parent: o.parent,
        grants: granted(o),
      } as Operation,
    })),
    ...objects.map((o) => ({
      step: "refresh" as const,
      operation: { verb: "LIST", collection: collection(o), uid: o.uid } as Operation,
    })),
    ...objects.map((o) => ({
      step: "destroy" as const,
      operation: { verb: "DELETE", collection: collection(o), uid: o.uid } as Operation,
    })),
  ];
}

const DEPLOYER = "the-deployer";

/** A need the model says the deployer does not meet, and the step of the stack's life that has it. */
export interface Refusal {
  step: Step;
  need: Need;
}

/**
 * What an identity bound only to the proposed roles (each bound where the proposal says; `without` takes one
 * capability out of one role) is refused over the stack's life, in the order the steps run. Empty: the proposal is
 * enough.
 */
export function refusedOverLifecycle(
  lp: LeastPrivilege,
  operations: readonly { step: Step; operation: Operation }[],
  dataSourceNeeds: readonly Need[],
  without?: { role: string; capability: string },
): Refusal[] {
  const model = new AccessModel({
    roles: lp.roles.map((role) => ({
      uid: role.name,
      capabilities: role.capabilities.filter((c) => role.name !== without?.role || c !== without.capability),
    })),
    bindings: lp.roles.flatMap((role) =>
      role.bindOn.map((group) => ({
        uid: `${role.name}@${group}`,
        group,
        identity: DEPLOYER,
        role: role.name,
      })),
    ),
  });
  return [
    ...dataSourceNeeds
      .filter((need) => !capabilitiesOn(model, DEPLOYER, need.group).has(need.capability))
      .map((need) => ({ step: "preview" as const, need })),
    ...operations.flatMap(({ step, operation }) =>
      unmetNeeds(model, DEPLOYER, operation).map((need) => ({ step, need })),
    ),
  ];
}

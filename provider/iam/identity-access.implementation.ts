/**
 * The implementation of the provider of platform.iam.IdentityAccess: its scope is one identity's bindings on every
 * group the provider can list, its id the identity's uid. Exported as the WHOLE module so Pulumi serializes a
 * `require()`.
 */
import type * as pulumi from "@pulumi/pulumi";
import { containsUnknown } from "../core/check";
import { dynamicProvider } from "../core/resource-provider";
import { accessOperations, type AccessDescription } from "./access-provider";
import type { Binding, Scope } from "./access";
import { IDENTITY_ACCESS } from "./identity-access.declaration";

type Props = Record<string, unknown>;

function identityOf(scope: Scope): string {
  if (scope.kind !== "identity") throw new Error(`IdentityAccess governs an identity, not ${scope.kind}`);
  return scope.identityUid;
}

export const description: AccessDescription = {
  declaration: IDENTITY_ACCESS,
  scopeOf(props) {
    const { identityUid } = props;
    if (typeof identityUid !== "string" || identityUid === "" || containsUnknown(identityUid))
      return undefined;
    return { kind: "identity", identityUid };
  },
  scopeOfId: (id) => ({ kind: "identity", identityUid: id }),
  idOf: identityOf,
  scopeInputs: (scope) => ({ identityUid: identityOf(scope) }),
  declaredOf(props, scope) {
    const identityUid = identityOf(scope);
    const bindings = (Array.isArray(props.bindings) ? props.bindings : []) as Props[];
    return bindings.map((b): Binding => ({
      groupUid: String(b.groupUid),
      identityUid,
      roleUid: String(b.roleUid),
    }));
  },
  assertExists: (client, scope) => client.identities.get(identityOf(scope)),
  programFormOf(bindings) {
    return bindings.map((b) => ({ groupUid: b.groupUid, roleUid: b.roleUid }));
  },
};

export const resource = accessOperations(description);

export const provider: pulumi.dynamic.ResourceProvider = dynamicProvider(resource);

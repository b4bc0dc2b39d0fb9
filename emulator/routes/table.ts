/**
 * The route table: every method and path the emulator answers, one literal line each, in the OpenAPI's spelling
 * (`{uid}` is a uid with its slashes, `:verb` a custom method), so a path can be found by searching for it. Each
 * collection's rules live in the file named after it; the generic verbs in ./crud.ts and ./crud-list.ts.
 */
import type { Control } from "./control";
import { controlHandlers } from "./control";
import { accountAssociations } from "./account-associations";
import { advisories } from "./advisories";
import { createHandler, deleteHandler, getHandler, updateHandler } from "./crud";
import { listHandler } from "./crud-list";
import { createOrganization, groups } from "./groups";
import { groupInvites } from "./group-invites";
import { identities, lookupIdentityUid } from "./identities";
import { identityProviders } from "./identity-providers";
import { repos } from "./repos";
import { batchCreateRoleBindings, roleBindings } from "./role-bindings";
import { deleteRole, getRole, roles, updateRole } from "./roles";
import { exchange } from "./sts";
import { tags } from "./tags";
import type { Route, RouteContext, Staged, Synchronous } from "./types";
import {
  v1GetGroup,
  v1ListAccountAssociations,
  v1ListGroupInvites,
  v1ListGroups,
  v1ListIdentities,
  v1ListIdentityProviders,
  v1ListRepos,
  v1ListRoleBindings,
  v1ListRoles,
  v1LookupIdentity,
  v1Update,
} from "./v1";

type Method = Route["method"];

interface Flags {
  /** No bearer token (token exchange, the issuer, control endpoints). */
  anonymous?: boolean;
  /** The handler validates its body itself (see Route.parsesBody). */
  parsesBody?: boolean;
  /** Takes an application/x-www-form-urlencoded body. */
  formBody?: boolean;
}

const BODY: Flags = { parsesBody: true };
const ANONYMOUS: Flags = { anonymous: true };

/**
 * "PATCH /iam/v2beta1/identities/{uid}" → a fastify route: `{uid}` (last segment only) captures the rest of the
 * path, a custom method's ":" is escaped as "::". The work is a synchronous handler (an async one does not
 * compile: it runs in one store transaction), or a `Staged` one whose awaited half comes first.
 */
export function route<R>(
  line: `${Method} /${string}`,
  work: ((ctx: RouteContext) => Synchronous<R>) | Staged,
  flags: Flags = {},
): Route {
  const [method, path] = line.split(" ") as [Method, string];
  const url = path.replace(/:/g, "::").replace(/\/\{uid\}$/, "/*");
  if (/[{}]/.test(url)) throw new Error(`route ${line}: only a final {uid} is supported`);
  return {
    method,
    url,
    ...(typeof work === "function" ? { handler: work } : { handler: work.handler, prepare: work.prepare }),
    ...(flags.anonymous === true ? { auth: false } : {}),
    ...(flags.parsesBody === true ? { parsesBody: true } : {}),
    ...(flags.formBody === true ? { formBody: true } : {}),
  };
}

export function routeTable(control: Control): Route[] {
  const c = controlHandlers(control);
  return [
    // Control (./control.ts): loopback scripts only.
    route("GET /_emulator/health", c.health, ANONYMOUS),
    route("POST /_emulator/reset", c.reset, ANONYMOUS),
    route("POST /_emulator/seed", c.seed, ANONYMOUS),
    route("POST /_emulator/oidc/mint", c.mint, ANONYMOUS),
    route("POST /_emulator/clock/advance", c.advanceClock, ANONYMOUS),
    route("GET /_emulator/requests", c.requests, ANONYMOUS),
    route("DELETE /_emulator/requests", c.clearRequests, ANONYMOUS),
    route("GET /_emulator/faults", c.faults, ANONYMOUS),
    route("POST /_emulator/faults", c.addFaults, ANONYMOUS),
    route("DELETE /_emulator/faults", c.clearFaults, ANONYMOUS),
    route("POST /_emulator/users", c.createUser, ANONYMOUS),

    // Token exchange (./sts.ts) and the test OIDC issuer (../oidc.ts).
    route("GET /sts/exchange", exchange, { anonymous: true, formBody: true }),
    route("POST /sts/exchange", exchange, { anonymous: true, formBody: true }),
    route("GET /oidc/.well-known/openid-configuration", (ctx) => ctx.svc.issuer.discovery(), ANONYMOUS),
    route("GET /oidc/jwks", (ctx) => ctx.svc.issuer.jwks(), ANONYMOUS),

    // Groups (./groups.ts): POST without a parent creates an organization.
    route("GET /iam/v2beta1/groups", listHandler(groups)),
    route("POST /iam/v2beta1/groups", createOrganization, BODY),
    route("GET /iam/v2beta1/groups/{uid}", getHandler(groups)),
    route("POST /iam/v2beta1/groups/{uid}", createHandler(groups), BODY),
    route("PATCH /iam/v2beta1/groups/{uid}", updateHandler(groups), BODY),
    route("DELETE /iam/v2beta1/groups/{uid}", deleteHandler(groups)),

    // Identities (./identities.ts).
    route("GET /iam/v2beta1/identities", listHandler(identities)),
    route("GET /iam/v2beta1/identities:lookupIdentity", lookupIdentityUid),
    route("GET /iam/v2beta1/identities/{uid}", getHandler(identities)),
    route("POST /iam/v2beta1/identities/{uid}", createHandler(identities), BODY),
    route("PATCH /iam/v2beta1/identities/{uid}", updateHandler(identities), BODY),
    route("DELETE /iam/v2beta1/identities/{uid}", deleteHandler(identities)),

    // Roles (./roles.ts): built-in roles are read here too, and never changed.
    route("GET /iam/v2beta1/roles", listHandler(roles)),
    route("GET /iam/v2beta1/roles/{uid}", getRole),
    route("POST /iam/v2beta1/roles/{uid}", createHandler(roles), BODY),
    route("PATCH /iam/v2beta1/roles/{uid}", updateRole, BODY),
    route("DELETE /iam/v2beta1/roles/{uid}", deleteRole),

    // Role bindings (./role-bindings.ts).
    route("GET /iam/v2beta1/roleBindings", listHandler(roleBindings)),
    route("POST /iam/v2beta1/roleBindings:batchCreate", batchCreateRoleBindings, BODY),
    route("GET /iam/v2beta1/roleBindings/{uid}", getHandler(roleBindings)),
    route("POST /iam/v2beta1/roleBindings/{uid}", createHandler(roleBindings), BODY),
    route("PATCH /iam/v2beta1/roleBindings/{uid}", updateHandler(roleBindings), BODY),
    route("DELETE /iam/v2beta1/roleBindings/{uid}", deleteHandler(roleBindings)),

    // Identity providers (./identity-providers.ts).
    route("GET /iam/v2beta1/identityProviders", listHandler(identityProviders)),
    route("GET /iam/v2beta1/identityProviders/{uid}", getHandler(identityProviders)),
    route("POST /iam/v2beta1/identityProviders/{uid}", createHandler(identityProviders), BODY),
    route("PATCH /iam/v2beta1/identityProviders/{uid}", updateHandler(identityProviders), BODY),
    route("DELETE /iam/v2beta1/identityProviders/{uid}", deleteHandler(identityProviders)),

    // Group invites (./group-invites.ts): no update.
    route("GET /iam/v2beta1/groupInvites", listHandler(groupInvites)),
    route("GET /iam/v2beta1/groupInvites/{uid}", getHandler(groupInvites)),
    route("POST /iam/v2beta1/groupInvites/{uid}", createHandler(groupInvites), BODY),
    route("DELETE /iam/v2beta1/groupInvites/{uid}", deleteHandler(groupInvites)),

    // Account associations (./account-associations.ts): {uid} is the group's.
    route("GET /iam/v2beta1/accountAssociations", listHandler(accountAssociations)),
    route("GET /iam/v2beta1/accountAssociations/{uid}", getHandler(accountAssociations)),
    route("POST /iam/v2beta1/accountAssociations/{uid}", createHandler(accountAssociations), BODY),
    route("PATCH /iam/v2beta1/accountAssociations/{uid}", updateHandler(accountAssociations), BODY),
    route("DELETE /iam/v2beta1/accountAssociations/{uid}", deleteHandler(accountAssociations)),

    // Read-only collections, created by seeding (./repos.ts, ./tags.ts, ./advisories.ts).
    route("GET /registry/v2beta1/repos", listHandler(repos)),
    route("GET /registry/v2beta1/repos/{uid}", getHandler(repos)),
    route("GET /registry/v2beta1/tags", listHandler(tags)),
    route("GET /registry/v2beta1/tags/{uid}", getHandler(tags)),
    route("GET /vulnerabilities/v2beta1/advisories", listHandler(advisories)),
    route("GET /vulnerabilities/v2beta1/advisories/{uid}", getHandler(advisories)),

    // v1, as the Terraform provider calls it (./v1.ts).
    route("GET /iam/v1/groups", v1ListGroups),
    route("GET /iam/v1/groups/{uid}", v1GetGroup),
    route("PUT /iam/v1/groups/{uid}", v1Update),
    route("PATCH /iam/v1/groups/{uid}", v1Update),
    route("GET /iam/v1/identities", v1ListIdentities),
    route("GET /iam/v1/identities/lookup", v1LookupIdentity),
    route("GET /iam/v1/roles", v1ListRoles),
    route("GET /iam/v1/rolebindings", v1ListRoleBindings),
    route("GET /iam/v1/group_invites", v1ListGroupInvites),
    route("GET /iam/v1/account_associations", v1ListAccountAssociations),
    route("GET /iam/v1/identityProviders", v1ListIdentityProviders),
    route("GET /registry/v1/repos", v1ListRepos),
  ];
}

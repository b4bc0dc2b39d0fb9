/** Identity providers: OIDC providers of an organization; the client secret is write-only. */
import {
  IDENTITY_PROVIDER_UPDATE_FIELDS,
  IdentityProviderCreate,
  IdentityProviderUpdate,
} from "../../sdk/schemas";
import type { FieldViolation } from "../../sdk/schemas/common";
import { failedPrecondition } from "../errors";
import type { StoredObject } from "../store";
import { collectionSpec, COMMON_SORT, applyChanges, baseWire, type CollectionSpec } from "./crud";
import { requireGrantableRole } from "./references";
import { isRoot } from "../../sdk/uidp";

/** Loopback hosts, where the emulator's own issuer (http) lives. */
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** An OIDC issuer is an https URL (OpenID Connect Discovery); plain http only on a loopback host. */
function issuerViolations(oidc: unknown): FieldViolation[] {
  if (oidc === null || typeof oidc !== "object" || typeof (oidc as { issuer?: unknown }).issuer !== "string")
    return [];
  let url: URL | undefined;
  try {
    url = new URL((oidc as { issuer: string }).issuer);
  } catch {
    url = undefined;
  }
  const ok =
    url !== undefined &&
    (url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname))) &&
    url.username === "" &&
    url.password === "";
  if (ok) return [];
  const description = "oidc.issuer must be an https URL (http only on a loopback host), without credentials";
  return [{ field: "oidc.issuer", description }];
}

function identityProviderWire(o: StoredObject): Record<string, unknown> {
  const { clientSecret: _secret, ...oidc } = (o.fields.oidc as Record<string, unknown> | undefined) ?? {};
  return { description: "", ...baseWire(o), oidc };
}

export const identityProviders: CollectionSpec = {
  ...collectionSpec("identityProviders"),
  sortable: [...COMMON_SORT, "defaultRole"],
  toWire: identityProviderWire,
  checkParent: (parentUid) => {
    if (!isRoot(parentUid)) {
      const description = `identity providers can only be created on an organization (a root group); ${parentUid} is a folder`;
      throw failedPrecondition(description, [
        { type: "NOT_AN_ORGANIZATION", subject: parentUid, description },
      ]);
    }
  },
  create: {
    schema: IdentityProviderCreate,
    check: (input) => issuerViolations(input.oidc),
    fields: (body, parent, ctx) => {
      requireGrantableRole(ctx, body.defaultRole as string, parent, "defaultRole");
      return body;
    },
  },
  update: {
    schema: IdentityProviderUpdate,
    fields: IDENTITY_PROVIDER_UPDATE_FIELDS,
    required: ["name", "defaultRole", "oidc"],
    check: (input) => issuerViolations(input.oidc),
    apply: (o, changes, ctx, paths) => {
      if (typeof changes.defaultRole === "string")
        requireGrantableRole(ctx, changes.defaultRole, o.parent, "defaultRole");
      const oidc = changes.oidc as Record<string, unknown> | undefined;
      const previousSecret = (o.fields.oidc as Record<string, unknown> | undefined)?.clientSecret;
      // The secret is write-only: an update that does not send it keeps the stored one, unless the mask names
      // oidc.clientSecret itself (OpenAPI IdentityProvider.OIDC.clientSecret: then the empty value clears it).
      const named = paths.includes("oidc.clientSecret");
      if (oidc !== undefined && oidc.clientSecret === undefined && previousSecret !== undefined && !named) {
        changes.oidc = { ...oidc, clientSecret: previousSecret };
      }
      applyChanges(o, changes);
    },
  },
};

/**
 * The test OIDC issuer ({url}/oidc) and token exchange ({url}/sts/exchange).
 *
 * Exchange rules (documented in emulator/README.md): the bearer must be an RS256 ID token signed by the
 * emulator's issuer and unexpired on the emulator clock; the identity's claimMatch must match `iss` and `sub`
 * (exact `issuer`/`subject`, or anchored `issuerPattern`/`subjectPattern`), `aud` when `audience` /
 * `audiencePattern` is set, and `claims` exactly. An identity without issuer or issuerPattern is not assumable.
 * The `aud` query parameter, when given, must be this service's URL. Failures: 16 for a bad token, 7 for a valid
 * token that does not match (or an unknown identity: the answer does not reveal which).
 */
import type { JWTPayload } from "jose";
import { badField, permissionDenied, unauthenticated } from "../errors";
import { queryParam } from "../listing";
import { newToken } from "../service";
import type { Route, RouteContext } from "./types";

export const EXCHANGED_TOKEN_LIFETIME_MS = 60 * 60 * 1000;

function matches(value: unknown, exact: unknown, pattern: unknown): boolean {
  const values = Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)];
  if (typeof exact === "string" && exact !== "" && !values.includes(exact)) return false;
  if (typeof pattern === "string" && pattern !== "") {
    const regex = new RegExp(`^(?:${pattern})$`);
    if (!values.some((v) => regex.test(v))) return false;
  }
  return true;
}

export function claimMatchAccepts(claimMatch: Record<string, unknown>, payload: JWTPayload): boolean {
  const hasIssuer =
    (typeof claimMatch.issuer === "string" && claimMatch.issuer !== "") ||
    typeof claimMatch.issuerPattern === "string";
  if (!hasIssuer) return false;
  if (!matches(payload.iss, claimMatch.issuer, claimMatch.issuerPattern)) return false;
  if (!matches(payload.sub, claimMatch.subject, claimMatch.subjectPattern)) return false;
  if (!matches(payload.aud, claimMatch.audience, claimMatch.audiencePattern)) return false;
  const claims = (claimMatch.claims as Record<string, string> | undefined) ?? {};
  for (const [name, expected] of Object.entries(claims)) if (String(payload[name]) !== expected) return false;
  const claimPatterns = (claimMatch.claimPatterns as Record<string, string> | undefined) ?? {};
  for (const [name, pattern] of Object.entries(claimPatterns))
    if (!matches(payload[name], undefined, pattern)) return false;
  return true;
}

function sameService(aud: string, url: string): boolean {
  const strip = (s: string): string => s.replace(/\/+$/, "");
  try {
    return strip(aud) === strip(url) || new URL(aud).origin === new URL(url).origin;
  } catch {
    return false;
  }
}

async function exchange(
  ctx: RouteContext,
  authorization: string | undefined,
): Promise<Record<string, unknown>> {
  const identityUid = queryParam(ctx.query, "identity");
  if (identityUid === undefined || identityUid === "")
    throw badField("identity", "identity (the uid of the identity to assume) is required");
  const aud = queryParam(ctx.query, "aud");
  if (aud !== undefined && aud !== "" && !sameService(aud, ctx.url))
    throw permissionDenied(`aud ${aud} is not this service`);
  const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? "");
  if (match?.[1] === undefined)
    throw unauthenticated("token exchange needs an OIDC ID token as the bearer token");
  let payload: JWTPayload;
  try {
    payload = await ctx.svc.issuer.verify(match[1]);
  } catch {
    throw unauthenticated("the presented ID token is not a valid, unexpired token from a trusted issuer");
  }
  const identity = ctx.svc.store.get("identities", identityUid);
  const claimMatch = (identity?.fields.claimMatch as Record<string, unknown> | undefined) ?? {};
  if (identity === undefined || !claimMatchAccepts(claimMatch, payload)) {
    throw permissionDenied(`the presented token may not assume identity ${identityUid}`);
  }
  const token = newToken();
  const expiresAt = ctx.svc.clock.now().getTime() + EXCHANGED_TOKEN_LIFETIME_MS;
  ctx.svc.store.grantToken(token, { identityUid, expiresAt });
  ctx.svc.store.put("identities", {
    ...identity,
    fields: { ...identity.fields, lastSeenTime: ctx.svc.now() },
  });
  return { token, expiry: new Date(expiresAt).toISOString() };
}

export function stsRoutes(): Route[] {
  const handler = (ctx: RouteContext): Promise<Record<string, unknown>> => exchange(ctx, ctx.authorization);
  return [
    { method: "GET", url: "/sts/exchange", auth: false, handler },
    { method: "POST", url: "/sts/exchange", auth: false, handler },
    {
      method: "GET",
      url: "/oidc/.well-known/openid-configuration",
      auth: false,
      handler: (ctx) => ctx.svc.issuer.discovery(),
    },
    { method: "GET", url: "/oidc/jwks", auth: false, handler: (ctx) => ctx.svc.issuer.jwks() },
  ];
}

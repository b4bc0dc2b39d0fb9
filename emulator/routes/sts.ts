/**
 * Token exchange ({url}/sts/exchange): an ID token for a short-lived API token of the identity it may assume.
 *
 * Exchange rules (documented in emulator/README.md): GET or POST, parameters in the query or in an
 * `application/x-www-form-urlencoded` body (the Go SDK's HTTP/1 path), `aud` repeatable. The bearer must be an
 * ID token unexpired on the emulator clock, signed by the emulator's issuer, or, for an identity with
 * `staticKeys`, by one of that identity's keys. A claimMatch identity must be accepted by ../claim-match.ts (an
 * issuer rule and a subject rule, RE2 patterns matched against the whole value, extra claims when set, a missing
 * claim never matches; the token's `aud` must match the identity's audience rule or, without one, be this
 * service's own audience); a staticKeys identity needs `iss` and `sub` equal to its issuer and subject, its keys
 * (stored as given: a document that is no usable JWKS verifies nothing) unexpired and its audience (or, without
 * one, this service's). An identity without an issuer rule and a subject rule (awsIdentity, servicePrincipal) is
 * not assumable. Every `aud` given must be this service's URL. The answer is `{token, expiry}`: a JWT (see
 * ../api-tokens.ts) valid one hour. Failures: 16 for a bad token, 7 for a valid token that does not match (or an
 * unknown identity: the answer does not reveal which), 3 for a parameter the emulator cannot honour.
 */
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from "jose";
import { claimMatchAccepts } from "../claim-match";
import { badField, permissionDenied, unauthenticated } from "../errors";
import type { Query } from "../listing";
import { FormBody, StalePreparation, staged, type RouteContext } from "./types";

/**
 * Is `aud` this service's own audience: its URL (the emulator's issuer URL), with or without a trailing slash, or
 * an address on the same origin?
 */
export function sameService(aud: string, url: string): boolean {
  const strip = (s: string): string => s.replace(/\/+$/, "");
  try {
    return strip(aud) === strip(url) || new URL(aud).origin === new URL(url).origin;
  } catch {
    return false;
  }
}

/** Parameters a client may send that narrow the token; the emulator cannot honour them, so it refuses them. */
const UNSUPPORTED_PARAMETERS = ["scope", "scopes", "cap", "identityProvider"] as const;

/** The exchange's parameters from the query and the body (form or JSON), every value of each as a list. */
function exchangeParameters(ctx: RouteContext): Map<string, string[]> {
  const params = new Map<string, string[]>();
  const add = (source: Query): void => {
    for (const [name, value] of Object.entries(source)) {
      const values = (Array.isArray(value) ? value : [value]).filter((v) => v !== undefined && v !== null);
      for (const v of values) {
        if (typeof v !== "string")
          throw badField(name, `${name} must be a string (or a list of strings for aud)`);
        params.set(name, [...(params.get(name) ?? []), v]);
      }
    }
  };
  add(ctx.query);
  if (ctx.body instanceof FormBody) add(ctx.body.params);
  else if (ctx.body !== undefined && ctx.body !== null) {
    if (typeof ctx.body !== "object" || Array.isArray(ctx.body))
      throw badField("body", "the body must be an application/x-www-form-urlencoded form or a JSON object");
    add(ctx.body as Query);
  }
  return params;
}

/** Verifies a token against a static-keys identity's own JWKS, on the emulator clock; undefined if it fails. */
async function verifyWithStaticKeys(
  staticKeys: Record<string, unknown>,
  token: string,
  now: Date,
): Promise<JWTPayload | undefined> {
  try {
    const jwks = createLocalJWKSet(JSON.parse(String(staticKeys.issuerKeys)) as JSONWebKeySet);
    return (await jwtVerify(token, jwks, { currentDate: now })).payload;
  } catch {
    return undefined;
  }
}

/** Does a token verified with the identity's keys satisfy its static-keys rules? */
function staticKeysAccept(
  staticKeys: Record<string, unknown>,
  payload: JWTPayload,
  now: Date,
  url: string,
): boolean {
  if (payload.iss !== staticKeys.issuer || payload.sub !== staticKeys.subject) return false;
  if (typeof staticKeys.expirationTime === "string" && Date.parse(staticKeys.expirationTime) <= now.getTime())
    return false;
  const audiences = Array.isArray(payload.aud) ? payload.aud : payload.aud === undefined ? [] : [payload.aud];
  const accepted = (staticKeys.audiences as string[] | undefined) ?? [];
  // Without audiences of its own, the identity accepts the service's own address (the "global" audience).
  return accepted.length > 0
    ? audiences.some((a) => accepted.includes(a))
    : audiences.some((a) => sameService(a, url));
}

/** What an exchange's preparation verified, before its transaction. */
interface Verified {
  params: ExchangeParameters;
  /** The identity's `staticKeys` as the preparation read them (JSON; undefined without), and what they verified. */
  staticKeysJson: string | undefined;
  keyed: JWTPayload | undefined;
  /** The token verified by the emulator's issuer, when the identity's own keys did not verify it. */
  issued: JWTPayload | undefined;
}

interface ExchangeParameters {
  identityUid: string;
  auds: string[];
}

/** The exchange's parameters, checked: no narrowing parameter, one identity, every `aud` this service. */
function checkedParameters(ctx: RouteContext): ExchangeParameters {
  const params = exchangeParameters(ctx);
  for (const name of UNSUPPORTED_PARAMETERS) {
    if ((params.get(name) ?? []).some((v) => v !== ""))
      throw badField(name, `${name} narrows the token in ways the emulator cannot honour; leave it out`);
  }
  const identities = (params.get("identity") ?? []).filter((v) => v !== "");
  const identityUid = identities[0];
  if (identityUid === undefined)
    throw badField("identity", "identity (the uid of the identity to assume) is required");
  if (identities.length > 1) throw badField("identity", "identity must be given once");
  const auds = (params.get("aud") ?? []).filter((v) => v !== "");
  for (const aud of auds)
    if (!sameService(aud, ctx.url)) throw permissionDenied(`aud ${aud} is not this service`);
  return { identityUid, auds };
}

function staticKeysOf(ctx: RouteContext, identityUid: string): Record<string, unknown> | undefined {
  return ctx.svc.store.get("identities", identityUid)?.fields.staticKeys as
    Record<string, unknown> | undefined;
}

/**
 * The exchange's awaited half, before any transaction: the parameters, and the ID token's signature checked
 * against the identity's own keys (as they are now) or the emulator's issuer. It writes nothing.
 */
async function verifyExchange(ctx: RouteContext): Promise<Verified> {
  const params = checkedParameters(ctx);
  const bearer = ctx.bearer;
  if (bearer === undefined)
    throw unauthenticated("token exchange needs an OIDC ID token as the bearer token");
  const now = ctx.svc.clock.now();
  const staticKeys = staticKeysOf(ctx, params.identityUid);
  const keyed = staticKeys === undefined ? undefined : await verifyWithStaticKeys(staticKeys, bearer, now);
  let issued: JWTPayload | undefined;
  if (keyed === undefined) {
    try {
      issued = await ctx.svc.issuer.verify(bearer);
    } catch {
      throw unauthenticated("the presented ID token is not a valid, unexpired token from a trusted issuer");
    }
  }
  return { params, staticKeysJson: staticKeys && JSON.stringify(staticKeys), keyed, issued };
}

/**
 * The exchange's synchronous half, in the transaction: the identity re-read (an identity deleted or changed while
 * the token was verified is judged as it is now), its rules applied, the API token minted and `lastSeenTime` set
 * on the identity as it is now.
 */
function completeExchange(ctx: RouteContext, verified: Verified): Record<string, unknown> {
  const { identityUid, auds } = verified.params;
  const identity = ctx.svc.store.get("identities", identityUid);
  const staticKeys = identity?.fields.staticKeys as Record<string, unknown> | undefined;
  // The keys the signature was checked against were replaced meanwhile: check it again against the new ones.
  if ((staticKeys && JSON.stringify(staticKeys)) !== verified.staticKeysJson) throw new StalePreparation();
  const denied = () => permissionDenied(`the presented token may not assume identity ${identityUid}`);
  const now = ctx.svc.clock.now();
  if (verified.keyed !== undefined) {
    if (!staticKeysAccept(staticKeys!, verified.keyed, now, ctx.url)) throw denied();
  } else {
    // A static-keys identity accepts only tokens signed by its own keys.
    const claimMatch = identity?.fields.claimMatch as Record<string, unknown> | undefined;
    if (
      identity === undefined ||
      staticKeys !== undefined ||
      !claimMatchAccepts(claimMatch, verified.issued as Record<string, unknown>, (aud) =>
        sameService(aud, ctx.url),
      )
    )
      throw denied();
  }
  const audience = auds.length === 0 ? ctx.url : auds.length === 1 ? auds[0]! : auds;
  const { token, expiresAt } = ctx.svc.tokens.mint({
    subject: identityUid,
    audience,
    lifetimeMs: ctx.svc.exchangedTokenLifetimeMs,
  });
  ctx.svc.store.put("identities", {
    ...identity!,
    fields: { ...identity!.fields, lastSeenTime: ctx.svc.now() },
  });
  return { token, expiry: new Date(expiresAt).toISOString() };
}

/** GET and POST /sts/exchange: the token verified first (awaited), then the identity judged and touched at once. */
export const exchange = staged(verifyExchange, completeExchange);

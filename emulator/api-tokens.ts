/**
 * API tokens as the real service issues them: JWTs (RS256) carrying `iss`, `sub` (the identity's uid), `aud`,
 * `iat` and `exp`, so clients can read `exp` to decide when to exchange again. Authentication verifies the
 * signature and the expiry against the emulator clock; revocation (a deleted identity, a removed binding) is
 * decided afterwards from the live state, so a valid signature never outlives the identity it names.
 *
 * The key is not the one that signs test ID tokens (./oidc.ts): an ID token minted for a test must never pass as
 * an API token, whatever its `sub`. The key is kept in the store's meta, so tokens stay valid across restarts on
 * the same data file. Signing and verifying are synchronous (node:crypto), so authentication stays one call.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  verify,
  type JsonWebKey,
  type KeyObject,
} from "node:crypto";
import type { Clock } from "./clock";
import type { Store } from "./store";

/** Exchanged tokens live one hour (spec, Limits: "Exchanged API token validity: 1 hour"). */
export const EXCHANGED_TOKEN_LIFETIME_MS = 60 * 60 * 1000;
/** Tokens of root-level users (personal login: expiry "not shown" in the spec) live ten years. */
export const USER_TOKEN_LIFETIME_MS = 10 * 365 * 24 * 60 * 60 * 1000;

export interface ApiTokenClaims {
  iss: string;
  sub: string;
  aud: string | string[];
  iat: number;
  exp: number;
  jti: string;
}

export interface MintedToken {
  token: string;
  /** The `exp` claim as epoch ms. */
  expiresAt: number;
}

const base64url = (data: Buffer | string): string => Buffer.from(data).toString("base64url");

/** Verified signatures remembered (an RS256 verify costs ~50 µs; clients send the same token on every call). */
const VERIFIED_CACHE_SIZE = 1000;

export class ApiTokens {
  /** The `iss` of new tokens: the emulator's auth URL, known once it listens. */
  issuer = "";
  /** Tokens whose signature checked out, with their claims; expiry is still checked on every use. */
  private readonly verified = new Map<string, ApiTokenClaims>();

  private constructor(
    private readonly privateKey: KeyObject,
    private readonly publicKey: KeyObject,
    readonly kid: string,
    private readonly clock: Clock,
  ) {}

  static load(store: Store, clock: Clock): ApiTokens {
    let jwk = store.meta.apiTokenJwk as (JsonWebKey & { kid?: string }) | undefined;
    if (jwk === undefined) {
      const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
      jwk = { ...privateKey.export({ format: "jwk" }), kid: randomBytes(8).toString("hex") };
      store.meta.apiTokenJwk = jwk as Record<string, unknown>;
    }
    const privateKey = createPrivateKey({ key: jwk, format: "jwk" });
    return new ApiTokens(privateKey, createPublicKey(privateKey), jwk.kid ?? "", clock);
  }

  mint(options: { subject: string; audience: string | string[]; lifetimeMs: number }): MintedToken {
    const iat = Math.floor(this.clock.now().getTime() / 1000);
    const exp = iat + Math.floor(options.lifetimeMs / 1000);
    const claims: ApiTokenClaims = {
      iss: this.issuer,
      sub: options.subject,
      aud: options.audience,
      iat,
      exp,
      jti: randomBytes(12).toString("hex"),
    };
    const input = `${base64url(JSON.stringify({ alg: "RS256", typ: "JWT", kid: this.kid }))}.${base64url(JSON.stringify(claims))}`;
    const signature = sign("sha256", Buffer.from(input), this.privateKey);
    return { token: `${input}.${base64url(signature)}`, expiresAt: exp * 1000 };
  }

  /**
   * The claims of a token this emulator signed, unexpired on the emulator clock; otherwise the reason it is not
   * (said to the caller as code 16, never with the token in it).
   */
  verify(token: string): { claims: ApiTokenClaims } | { reason: string } {
    const known = this.verified.get(token);
    if (known !== undefined) return this.unexpired(known);
    const parts = token.split(".");
    if (parts.length !== 3) return { reason: "the bearer token is not a valid API token" };
    const [header, payload, signature] = parts as [string, string, string];
    let claims: Partial<ApiTokenClaims>;
    try {
      const head = JSON.parse(Buffer.from(header, "base64url").toString("utf8")) as Record<string, unknown>;
      if (head.alg !== "RS256" || head.kid !== this.kid)
        return { reason: "the bearer token is not a valid API token" };
      const signed = verify(
        "sha256",
        Buffer.from(`${header}.${payload}`),
        this.publicKey,
        Buffer.from(signature, "base64url"),
      );
      if (!signed) return { reason: "the bearer token is not a valid API token" };
      claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Partial<ApiTokenClaims>;
    } catch {
      return { reason: "the bearer token is not a valid API token" };
    }
    if (typeof claims.sub !== "string" || typeof claims.exp !== "number")
      return { reason: "the bearer token is not a valid API token" };
    if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, claims as ApiTokenClaims);
    return this.unexpired(claims as ApiTokenClaims);
  }

  private unexpired(claims: ApiTokenClaims): { claims: ApiTokenClaims } | { reason: string } {
    if (claims.exp * 1000 <= this.clock.now().getTime()) return { reason: "the bearer token has expired" };
    return { claims };
  }
}

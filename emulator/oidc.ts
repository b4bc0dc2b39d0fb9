/**
 * The emulator is also a test OIDC issuer (`{url}/oidc`): RS256 keys, a discovery document, a JWKS, minting
 * of ID tokens for tests, and verification of presented tokens at token exchange.
 */
import {
  SignJWT,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  type JWK,
  type JWTPayload,
  type KeyLike,
} from "jose";
import { randomBytes } from "node:crypto";
import type { Clock } from "./clock";
import type { Store } from "./store";

export interface MintOptions {
  subject: string;
  /** Defaults to the emulator's URL (the API base address). */
  audience?: string | string[];
  /** Defaults to 3600. Negative values mint an already expired token. */
  expiresInSeconds?: number;
  /** Extra claims; `iss` may be overridden here to test issuer mismatch. */
  claims?: Record<string, unknown>;
}

export class OidcIssuer {
  url = "";

  private constructor(
    private readonly privateKey: KeyLike | Uint8Array,
    private readonly publicJwk: JWK,
    private readonly clock: Clock,
  ) {}

  static async create(store: Store, clock: Clock): Promise<OidcIssuer> {
    let jwk = store.meta.signingJwk as unknown as JWK | undefined;
    if (jwk === undefined) {
      const { privateKey } = await generateKeyPair("RS256", { extractable: true });
      jwk = {
        ...(await exportJWK(privateKey)),
        kid: randomBytes(8).toString("hex"),
        alg: "RS256",
        use: "sig",
      };
      store.meta.signingJwk = jwk as unknown as Record<string, unknown>;
    }
    const privateKey = await importJWK(jwk, "RS256");
    const { kid, n, e, kty } = jwk;
    return new OidcIssuer(privateKey, { kty, n, e, kid, alg: "RS256", use: "sig" }, clock);
  }

  get issuer(): string {
    return `${this.url}/oidc`;
  }

  discovery(): Record<string, unknown> {
    return {
      issuer: this.issuer,
      jwks_uri: `${this.issuer}/jwks`,
      response_types_supported: ["id_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["RS256"],
    };
  }

  jwks(): { keys: JWK[] } {
    return { keys: [this.publicJwk] };
  }

  async mint(options: MintOptions): Promise<string> {
    const now = Math.floor(this.clock.now().getTime() / 1000);
    return new SignJWT({ ...(options.claims ?? {}) })
      .setProtectedHeader({ alg: "RS256", kid: this.publicJwk.kid ?? "", typ: "JWT" })
      .setIssuer(typeof options.claims?.iss === "string" ? options.claims.iss : this.issuer)
      .setSubject(options.subject)
      .setAudience(options.audience ?? this.url)
      .setIssuedAt(now)
      .setExpirationTime(now + (options.expiresInSeconds ?? 3600))
      .sign(this.privateKey);
  }

  /** Verifies signature and expiry against the emulator clock; throws on any failure. */
  async verify(token: string): Promise<JWTPayload> {
    const key = await importJWK(this.publicJwk, "RS256");
    const { payload } = await jwtVerify(token, key, { currentDate: this.clock.now(), algorithms: ["RS256"] });
    return payload;
  }
}

/**
 * The process-wide cache of exchanged API tokens (./token-exchange.ts fills it). Its own module so that the
 * configuration (./config.ts, which takes a private cache as an option) needs nothing of the exchange.
 */

/**
 * Exchanged API tokens, shared by every client in a process that assumes the same identity with the same OIDC
 * token source against the same service: a Pulumi provider process or program process exchanges once per token
 * lifetime, however many clients (profiles, data-source calls) it builds. Concurrent callers share one exchange.
 * The default is one cache per process; pass `tokenCache: new TokenCache()` for a private one (tests).
 */
export class TokenCache {
  private readonly tokens = new Map<string, { token: string; refreshAt: number }>();
  private readonly inFlight = new Map<string, Promise<string>>();

  /** The cached token for `key` if still fresh at `now`, else the result of `exchange` (one in flight per key). */
  get(
    key: string,
    now: number,
    exchange: () => Promise<{ token: string; refreshAt: number }>,
  ): Promise<string> {
    const cached = this.tokens.get(key);
    if (cached && now < cached.refreshAt) return Promise.resolve(cached.token);
    let pending = this.inFlight.get(key);
    if (pending === undefined) {
      pending = exchange()
        .then((fresh) => {
          this.tokens.set(key, fresh);
          return fresh.token;
        })
        .finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  /** Forget `token` under `key` if it is the cached one, so the next get() exchanges again. */
  invalidate(key: string, token: string): void {
    if (this.tokens.get(key)?.token === token) this.tokens.delete(key);
  }

  /** The cached token under `key`, for redaction. */
  peek(key: string): string | undefined {
    return this.tokens.get(key)?.token;
  }
}

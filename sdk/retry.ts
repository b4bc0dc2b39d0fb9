/**
 * The one retry helper: which failures are worth repeating, how long to wait, and the loop itself.
 *
 * Only calls that are safe to repeat are retried: GET and DELETE (a repeated DELETE of something already gone
 * answers 404, which callers treat as success), and a PATCH that names its fields in an updateMask (it sets those
 * fields to the same values however often it is applied: AIP-134). A POST is never retried blindly, because a
 * dropped connection or a 503 does not tell whether the service applied it; the provider looks the object up
 * before sending it again. The provider reuses `withRetry` for those "look up, then decide" flows.
 *
 * How long to keep trying is a TIME budget (AIP-194: retry transient failures with backoff for as long as the
 * caller can wait), with a count cap as a backstop: a burst of 503s must not fail a call after four quick tries
 * when the service is back ten seconds later.
 *
 * Delays are jittered exponential backoff (full jitter over [delay/2, delay]) and honour `Retry-After` in seconds
 * or as an HTTP date. The base delay is an option; tests set it to zero and inject `sleep` to assert the delay
 * requested rather than wall time.
 */
import { ApiError, ConnectionError } from "./errors";

/** HTTP statuses worth retrying for an idempotent request. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** Methods whose repetition cannot do harm. */
export function isIdempotentMethod(method: string): boolean {
  const m = method.toUpperCase();
  return m === "GET" || m === "DELETE" || m === "HEAD";
}

/**
 * A failure that a repeat of an idempotent request may cure: 429/502/503/504 or a dropped connection. Not a
 * timeout (AIP-194: DEADLINE_EXCEEDED is not retried automatically; waiting again multiplies the wait).
 */
export function isRetryableError(error: unknown): boolean {
  if (ConnectionError.isInstance(error)) return true;
  if (ApiError.isInstance(error)) return RETRYABLE_STATUSES.has(error.httpStatus);
  return false;
}

/** Milliseconds a `Retry-After` value asks for (delta-seconds or an HTTP date), or undefined when unusable. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Jittered exponential backoff for the given retry (1 = first retry): base * 2^(n-1), capped, in [d/2, d]. */
export function backoffDelay(
  retry: number,
  baseDelayMs: number,
  maxDelayMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

export interface RetryOptions {
  /** Retries after the first attempt, at most. 0 disables retrying. */
  maxRetries: number;
  /**
   * Time budget: no retry starts whose wait would end more than this many ms after the first attempt started.
   * Default: no budget (only maxRetries counts).
   */
  budgetMs?: number;
  /** Clock for the budget, in ms. Default Date.now. */
  now?: () => number;
  /** Delay before the first retry; doubles each time. Tests set 0. */
  baseDelayMs: number;
  /** Cap for the computed backoff. Default 8000. */
  maxDelayMs?: number;
  /** Longest `Retry-After` honoured; longer requests fall back to backoff. Default 60000. */
  maxRetryAfterMs?: number;
  /** Whether to try again after `error`. Default: isRetryableError. */
  shouldRetry?: (error: unknown, attempt: number) => boolean;
  /** The wait the failure itself asks for (e.g. Retry-After); default reads `retryAfterMs` from the error. */
  retryAfterMs?: (error: unknown) => number | undefined;
  /** Stops waiting and retrying when aborted. */
  signal?: AbortSignal;
  /** Injected for tests; default setTimeout. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Called before each wait, with the retry number (1-based), the delay and the error that caused it. */
  onRetry?: (info: { retry: number; delayMs: number; error: unknown }) => void;
}

/** Wait `ms`, rejecting early if the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    if (ms <= 0) return resolve();
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function defaultRetryAfter(error: unknown): number | undefined {
  const value = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** The delay before retry number `retry`: the service's Retry-After when sane, else jittered backoff. */
export function retryDelay(retry: number, error: unknown, options: RetryOptions): number {
  const asked = (options.retryAfterMs ?? defaultRetryAfter)(error);
  if (asked !== undefined && asked >= 0 && asked <= (options.maxRetryAfterMs ?? 60_000)) return asked;
  return backoffDelay(retry, options.baseDelayMs, options.maxDelayMs ?? 8000, options.random);
}

/**
 * Run `attempt` until it succeeds, fails with an error `shouldRetry` rejects, or the retries are spent (`maxRetries`
 * of them, or the time budget). The last error is rethrown as it was.
 */
export async function withRetry<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const shouldRetry = options.shouldRetry ?? isRetryableError;
  const wait = options.sleep ?? sleep;
  const now = options.now ?? Date.now;
  const started = now();
  for (let n = 0; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (n >= options.maxRetries || options.signal?.aborted || !shouldRetry(error, n)) throw error;
      const delayMs = retryDelay(n + 1, error, options);
      if (options.budgetMs !== undefined && now() - started + delayMs > options.budgetMs) throw error;
      options.onRetry?.({ retry: n + 1, delayMs, error });
      await wait(delayMs, options.signal);
    }
  }
}

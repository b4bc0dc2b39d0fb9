/**
 * Create without duplicates. A create that fails with a ConnectionError, TimeoutError or UnavailableError
 * may still have reached the service, so before anything is retried the object is looked up by its
 * natural key (name under its parent; for a binding: group + identity + role): found means it was created
 * and is taken over; not found means the create is sent again, and the same holds for that attempt.
 * Adoption (`adopt: true`) uses the same lookup before the first attempt.
 *
 * The lookup is a GET, safe to repeat, so it is retried patiently: if it cannot be answered, this create
 * has to fail without knowing whether the object exists, and Pulumi's next `up` would create it again.
 *
 * How long it keeps going is a time budget (tens of seconds, backing off and honouring Retry-After), not a
 * count of sends: a transient fault must not fail a resource while the service may still come back.
 */
import {
  ConnectionError,
  TimeoutError,
  UnavailableError,
  isRetryableError,
  retryDelay,
  sleep,
  withRetry,
} from "../../sdk";
import { parentOf } from "../../sdk/uidp";

export interface CreateSteps<T> {
  /** Sends the create. */
  create: () => Promise<T>;
  /** Finds the object by its natural key; undefined if it does not exist. */
  lookup: () => Promise<T | undefined>;
}

export interface CreateOutcome<T> {
  object: T;
  /** How the object came to be: sent by us, or found by the lookup. */
  how: "created" | "adopted" | "recovered";
}

export interface CreatePolicy {
  /** How long, in ms from the first send, resends and lookups may go on; nothing new starts after it. */
  budgetMs: number;
  /** Creates sent at most, each after a lookup that found nothing (a backstop to the budget). */
  maxCreates: number;
  /** Retries of a lookup that fails, at most (on top of the client's own GET retries), within the budget. */
  lookupRetries: number;
  /** Delay before the first lookup retry, and before the first resend; doubles each time. */
  lookupBaseDelayMs: number;
  /** Injected by tests to see the delays asked for; default the SDK's sleep. */
  sleep?: (ms: number) => Promise<void>;
  /** Clock of the budget; default Date.now. */
  now?: () => number;
}

export const DEFAULT_CREATE_POLICY: CreatePolicy = {
  budgetMs: 60_000,
  maxCreates: 12,
  lookupRetries: 10,
  lookupBaseDelayMs: 200,
};

/** True for failures after which the service may or may not have applied the request. */
export function isAmbiguousFailure(err: unknown): boolean {
  return ConnectionError.isInstance(err) || TimeoutError.isInstance(err) || UnavailableError.isInstance(err);
}

/** Adopts (when asked) or creates, recovering from each ambiguous failure by a lookup before sending again. */
export async function createOrAdopt<T>(
  steps: CreateSteps<T>,
  adopt: boolean,
  policy: CreatePolicy = DEFAULT_CREATE_POLICY,
): Promise<CreateOutcome<T>> {
  if (adopt) {
    const existing = await steps.lookup();
    if (existing !== undefined) return { object: existing, how: "adopted" };
  }
  const now = policy.now ?? Date.now;
  const started = now();
  const remaining = (): number => policy.budgetMs - (now() - started);
  for (let sent = 1; ; sent++) {
    try {
      return { object: await steps.create(), how: "created" };
    } catch (err) {
      if (!isAmbiguousFailure(err)) throw err;
      let found: T | undefined;
      try {
        found = await withRetry(() => steps.lookup(), {
          maxRetries: policy.lookupRetries,
          // At least one patient lookup even when the budget is spent: it decides between "recovered" and failing.
          budgetMs: Math.max(remaining(), policy.lookupBaseDelayMs * 8),
          now,
          baseDelayMs: policy.lookupBaseDelayMs,
          shouldRetry: (lookupError) => isRetryableError(lookupError) || isAmbiguousFailure(lookupError),
          ...(policy.sleep ? { sleep: policy.sleep } : {}),
        });
      } catch {
        // We cannot tell whether the create was applied; report the create's failure, not the lookup's.
        throw err;
      }
      if (found !== undefined) return { object: found, how: "recovered" };
      // Not applied: back off (honouring a Retry-After) before sending it again, while the budget allows.
      const delay = retryDelay(sent, err, {
        maxRetries: policy.maxCreates,
        baseDelayMs: policy.lookupBaseDelayMs,
      });
      if (sent >= policy.maxCreates || delay > remaining()) throw err;
      await (policy.sleep ?? sleep)(delay);
    }
  }
}

/**
 * The object named `name` directly under `parentUid` (a root-level one without it): the natural key of most objects,
 * which a lookup after an ambiguous create (or an adopt) finds by listing the parent's children by name.
 */
export async function childNamed<T extends { uid: string; name?: string | undefined }>(
  list: (query: { childrenOf?: string; name: string; pageSize: number }) => AsyncIterable<T>,
  parentUid: string | undefined,
  name: string,
): Promise<T | undefined> {
  const query = parentUid ? { childrenOf: parentUid, name, pageSize: 200 } : { name, pageSize: 200 };
  for await (const item of list(query))
    if (item.name === name && parentOf(item.uid) === parentUid) return item;
  return undefined;
}

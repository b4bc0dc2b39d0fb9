/**
 * Create without duplicates. A create that fails with a ConnectionError, TimeoutError or UnavailableError
 * may still have reached the service, so before anything is retried the object is looked up by its
 * natural key (name under its parent; for a binding: group + identity + role): found means it was created
 * and is taken over; not found means the create is sent once more. Adoption (`adopt: true`) uses the same
 * lookup before the first attempt.
 *
 * May import: the SDK's error classes.
 */
import { ConnectionError, TimeoutError, UnavailableError } from "../../sdk";

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

/** True for failures after which the service may or may not have applied the request. */
export function isAmbiguousFailure(err: unknown): boolean {
  return ConnectionError.isInstance(err) || TimeoutError.isInstance(err) || UnavailableError.isInstance(err);
}

/** Adopts (when asked) or creates, recovering from an ambiguous failure by lookup, then one retry. */
export async function createOrAdopt<T>(steps: CreateSteps<T>, adopt: boolean): Promise<CreateOutcome<T>> {
  if (adopt) {
    const existing = await steps.lookup();
    if (existing !== undefined) return { object: existing, how: "adopted" };
  }
  try {
    return { object: await steps.create(), how: "created" };
  } catch (err) {
    if (!isAmbiguousFailure(err)) throw err;
    let found: T | undefined;
    try {
      found = await steps.lookup();
    } catch {
      // The lookup failing too means we cannot tell; report the original failure, not the lookup's.
      throw err;
    }
    if (found !== undefined) return { object: found, how: "recovered" };
    return { object: await steps.create(), how: "created" };
  }
}

/** The parent of a child uid (`a/b` → `a`); undefined for a root uid. */
export function parentOf(uid: string): string | undefined {
  const cut = uid.lastIndexOf("/");
  return cut < 0 ? undefined : uid.slice(0, cut);
}

/**
 * The real service takes a while before a new group, role or role binding is effective for authorization: a
 * request that depends on an object created moments ago can get NotFound or PermissionDenied, then succeed. The
 * client remembers, for the whole process, the uids of such objects it created (and forgets those it deleted). A
 * request that fails with NotFound or PermissionDenied is retried, until that object is `propagationWindowMs` old,
 * when it depends on one of them: a create that names one (its parent group or an ancestor, anything in its query
 * or body), or a read, update or delete of such an object itself. After that the error is final, and says that the
 * client waited, for what, and which setting widens the window.
 */
import { COLLECTIONS, PROPAGATING } from "./collections";
import { ApiError, NotFoundError, PermissionDeniedError, type ApiErrorInit } from "./errors";
import { isAtOrBelow } from "./uidp";

/**
 * The collections whose new objects the service takes a while to make effective for authorization (a group and
 * what is below it, a role, a binding): creates there are remembered. Other objects (an identity, an invite) are
 * usable at once; a 404 on them is an answer.
 */
export const PROPAGATING_COLLECTIONS: readonly string[] = PROPAGATING.map((c) => COLLECTIONS[c].path);

/** Does a create on `path` make an object that propagates? */
export function propagates(path: string): boolean {
  // eslint-disable-next-line no-restricted-syntax -- a request path, not a uid
  return PROPAGATING_COLLECTIONS.some((c) => path === c || path.startsWith(`${c}/`));
}

/** Most uids remembered; the oldest are forgotten first (they are long past any window). */
const MAX_REMEMBERED = 10_000;

/** The uids this process created, with when (ms since the epoch, on the client's clock). */
export class CreatedObjects {
  private readonly created = new Map<string, number>();

  record(uid: string, at: number): void {
    this.created.delete(uid);
    this.created.set(uid, at);
    if (this.created.size > MAX_REMEMBERED) this.created.delete(this.created.keys().next().value!);
  }

  /** Forgets `uid` and every uid below it: this process deleted it, so a 404 on it is an answer, not a delay. */
  forget(uid: string): void {
    for (const known of [...this.created.keys()]) if (isAtOrBelow(known, uid)) this.created.delete(known);
  }

  /** `uid` itself, when this process created it less than `windowMs` before `now`. */
  recent(uid: string, now: number, windowMs: number): { uid: string; createdAt: number } | undefined {
    const createdAt = this.created.get(uid);
    return createdAt !== undefined && now - createdAt < windowMs ? { uid, createdAt } : undefined;
  }

  /**
   * The most recently created uid this request names, among those created less than `windowMs` before `now`.
   * `names` are the request's decoded path, query values and body strings.
   */
  dependency(
    names: readonly string[],
    now: number,
    windowMs: number,
  ): { uid: string; createdAt: number } | undefined {
    let found: { uid: string; createdAt: number } | undefined;
    for (const [uid, createdAt] of this.created) {
      if (now - createdAt >= windowMs) continue;
      if (found !== undefined && createdAt <= found.createdAt) continue;
      if (names.some((name) => namesUid(name, uid))) found = { uid, createdAt };
    }
    return found;
  }
}

/** Does `text` name `uid`: equal to it, a uid below it, or a path holding it as whole segments? */
function namesUid(text: string, uid: string): boolean {
  if (isAtOrBelow(text, uid)) return true;
  const at = text.indexOf(`/${uid}`);
  if (at === -1) return false;
  const after = text.charAt(at + uid.length + 1);
  return after === "" || after === "/" || after === "?";
}

/** Every created uid of this process, shared by every client (a provider process builds several). */
export const processCreatedObjects = new CreatedObjects();

/** Every string a request names: the decoded path, the query's values, the body's strings (nested). */
export function requestNames(
  path: string,
  query: Record<string, unknown> | undefined,
  body: unknown,
): string[] {
  const names: string[] = [];
  try {
    names.push(decodeURIComponent(path));
  } catch {
    names.push(path);
  }
  const walk = (value: unknown, depth: number): void => {
    if (typeof value === "string") names.push(value);
    else if (Array.isArray(value)) for (const v of value) walk(v, depth + 1);
    else if (value !== null && typeof value === "object" && depth < 8)
      for (const v of Object.values(value as Record<string, unknown>)) walk(v, depth + 1);
  };
  walk(query, 0);
  walk(body, 0);
  return names;
}

/** Is this an answer that propagation can explain (NotFound or PermissionDenied)? */
export function isPropagationError(error: unknown): error is ApiError {
  return NotFoundError.isInstance(error) || PermissionDeniedError.isInstance(error);
}

/** The same error (same class, code and details) with a note appended to what the service said. */
export function withNote(error: ApiError, note: string): ApiError {
  const Class = error.constructor as new (init: ApiErrorInit) => ApiError;
  return new Class({
    method: error.method,
    path: error.path,
    httpStatus: error.httpStatus,
    code: error.code,
    serviceMessage: `${error.serviceMessage} (${note})`,
    details: error.details,
    requestId: error.requestId,
    retryAfterMs: error.retryAfterMs,
  });
}

/** The wait before the n-th propagation retry (0-based): from `base` (at least 100 ms), doubling, at most 2 s. */
export function propagationDelay(retry: number, baseMs: number): number {
  return Math.min(2000, Math.max(100, baseMs) * 2 ** Math.min(retry, 10));
}

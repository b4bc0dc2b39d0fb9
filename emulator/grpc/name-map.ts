/**
 * An object keyed by names a request carries (query parameters, header fields), inheriting nothing: `__proto__`
 * and `constructor` are keys like any other, and no key finds a member of Object.prototype.
 *
 * Made as fast-querystring makes the REST face's query objects: an instance of a constructor whose prototype has
 * no prototype. V8 keeps such an object fast (a hidden class, inline properties), where `Object.create(null)`
 * starts in dictionary mode, which made every read of a gRPC call's query, in the handlers both faces share,
 * slower than the same read over REST.
 */
const NameMap = function NameMap() {} as unknown as new () => Record<string, never>;
NameMap.prototype = Object.create(null) as object;

/** A new, empty name map. */
export function nameMap<T>(): Record<string, T> {
  return new NameMap() as Record<string, T>;
}

/**
 * fast-check arbitraries derived from the OpenAPI's JSON schemas (spec/openapi-v2beta1.json): valid request bodies
 * (every writable member, required ones always, optional ones sometimes; enums, formats and maps as the schema
 * says, with per-member hints where the product spec or the OpenAPI's prose adds a rule the schema cannot state),
 * and certainly-invalid variants of a valid body (a wrong JSON type, an unknown member at any depth, an
 * out-of-range value), each naming the path it broke. Used by ./openapi.fuzz.test.ts.
 */
import fc from "fast-check";
import { MAX_KEY_LENGTH } from "../../sdk/schemas/bounds";
import { resolve, type Schema } from "../emulator/openapi";

/**
 * Values for member paths the schema alone cannot make valid, keyed "oidc.issuer", map values "claims.*",
 * array items "capabilities[]". `null` leaves the member out of valid bodies.
 */
export type Hints = Record<string, fc.Arbitrary<unknown> | null | undefined>;

/** Enum values a client means something by: the protobuf zero values (`*_UNSPECIFIED`, `UNKNOWN`) mean "unset". */
export function meaningfulEnum(values: readonly unknown[]): unknown[] {
  return values.filter((v) => typeof v !== "string" || !/(^|_)(UNSPECIFIED|UNKNOWN)$/.test(v));
}

/** Short text of letters, digits and a few separators: valid in every free-text member. */
export const plainText = fc.string({
  unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789 -_.".split("")),
  minLength: 1,
  maxLength: 16,
});

/**
 * Names JavaScript gives a meaning to, and other strings a server written in it may mishandle as a key: none is a
 * member of any message of the API, and each is a valid key of a map<string, ...> (a server that looks them up on
 * its own objects answers 500 or drops them). The long one is as long as the service's bound on a key allows (sdk/schemas/bounds.ts).
 */
export const HOSTILE_NAMES: readonly string[] = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "__defineGetter__",
  "valueOf",
  "isPrototypeOf",
  "",
  "ünïcødé-名前-😀",
  "x".repeat(MAX_KEY_LENGTH),
];

/** A map key: an identifier, or a hostile name (a map's keys are free). */
const mapKey = fc.oneof(
  fc.string({
    unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz_".split("")),
    minLength: 1,
    maxLength: 8,
  }),
  fc.constantFrom(...HOSTILE_NAMES),
);

const isWritable = (member: Schema): boolean => resolve(member).readOnly !== true && member.readOnly !== true;

/** The writable members of an object schema. */
export function writableMembers(schema: Schema): Record<string, Schema> {
  const properties = (resolve(schema).properties as Record<string, Schema> | undefined) ?? {};
  return Object.fromEntries(Object.entries(properties).filter(([, member]) => isWritable(member)));
}

/** A valid value for `schema` at `path` (hints first). */
export function arbitraryOf(schema: Schema, hints: Hints, path = ""): fc.Arbitrary<unknown> {
  const hint = hints[path];
  if (hint !== undefined && hint !== null) return hint;
  const s = resolve(schema);
  if (Array.isArray(s.enum)) return fc.constantFrom(...meaningfulEnum(s.enum));
  switch (s.type) {
    case "string":
      if (s.format === "date-time")
        return fc
          .date({
            min: new Date("2000-01-01T00:00:00Z"),
            max: new Date("2099-12-31T00:00:00Z"),
            noInvalidDate: true,
          })
          .map((d) => d.toISOString());
      if (s.format === "int64") return fc.bigInt({ min: 0n, max: 2n ** 53n }).map(String);
      return plainText;
    case "boolean":
      return fc.boolean();
    case "integer":
    case "number":
      return fc.integer({ min: 0, max: 1000 });
    case "array":
      return fc.array(arbitraryOf(s.items as Schema, hints, `${path}[]`), { maxLength: 3 });
  }
  if (s.properties !== undefined) {
    const members = writableMembers(s);
    const required = ((s.required as string[] | undefined) ?? []).filter((name) => name in members);
    const arbitraries: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, member] of Object.entries(members)) {
      const at = path === "" ? name : `${path}.${name}`;
      if (hints[at] === null) continue;
      arbitraries[name] = arbitraryOf(member, hints, at);
    }
    return fc.record(arbitraries, { requiredKeys: required.filter((name) => name in arbitraries) });
  }
  if (typeof s.additionalProperties === "object")
    return fc.dictionary(mapKey, arbitraryOf(s.additionalProperties as Schema, hints, `${path}.*`), {
      maxKeys: 2,
    });
  return fc.constant({});
}

/** One certainly-invalid variant of a valid body. */
export interface Mutation {
  /**
   * "out of range" breaks the schema (an enum, a format, int32); "out of bounds" breaks only the service's limits
   * on every string (no control characters or lone surrogates, at most 4096 characters: emulator/bounds.ts).
   */
  kind: "wrong type" | "unknown member" | "out of range" | "out of bounds";
  /** Where, as a field path ("oidc.issuer", "capabilities[0]", "body"). */
  at: string;
  body: unknown;
}

type PathStep = string | number;

function pathText(steps: PathStep[]): string {
  if (steps.length === 0) return "body";
  return steps
    .map((step, i) => (typeof step === "number" ? `[${step}]` : i === 0 ? step : `.${step}`))
    .join("");
}

function replaceAt(value: unknown, steps: PathStep[], replacement: (old: unknown) => unknown): unknown {
  if (steps.length === 0) return replacement(value);
  const [head, ...rest] = steps as [PathStep, ...PathStep[]];
  if (Array.isArray(value)) {
    const copy = [...value];
    copy[head as number] = replaceAt(copy[head as number], rest, replacement);
    return copy;
  }
  const record = value as Record<string, unknown>;
  return { ...record, [head]: replaceAt(record[head], rest, replacement) };
}

/** JSON values of another type than `type`, none of which protobuf's JSON mapping reads as that type. */
function otherTypes(s: Schema): unknown[] {
  if (Array.isArray(s.enum)) return [7, true, {}];
  switch (s.type) {
    case "string":
      return s.format === "int64" ? [true, {}, ["1"]] : [42, true, {}, ["x"]];
    case "boolean":
      return ["yes", {}, [true]];
    case "integer":
    case "number":
      return [true, {}, "ten"];
    case "array":
      return ["x", { item: 1 }, 5];
  }
  return ["x", 5, [], true];
}

/** Values of the right JSON type that no member of this schema accepts. */
function outOfRange(s: Schema): unknown[] {
  if (Array.isArray(s.enum)) return ["NOT_A_VALUE_OF_THIS_ENUM"];
  if (s.type === "string") {
    const values: unknown[] = [];
    if (s.format === "date-time") values.push("2021-02-30T25:61:00Z", "yesterday");
    if (s.format === "int64") values.push("12ab", "99999999999999999999999");
    return values;
  }
  if (s.type === "integer") return [2 ** 31, -(2 ** 31) - 1, 1.5];
  return [];
}

/**
 * Every mutation of `root` that makes it invalid against `schema` (`root` is assumed valid); an unknown member is
 * named `unknownName` (a name no message of the API has).
 */
export function mutationsOf(root: unknown, schema: Schema, unknownName = "bogusMember"): Mutation[] {
  const out: Mutation[] = [];
  const walk = (value: unknown, member: Schema, steps: PathStep[]): void => {
    const s = resolve(member);
    const mutate = (kind: Mutation["kind"], replacement: (old: unknown) => unknown): void => {
      out.push({ kind, at: pathText(steps), body: replaceAt(root, steps, replacement) });
    };
    if (steps.length > 0) {
      for (const other of otherTypes(s)) mutate("wrong type", () => other);
      for (const other of outOfRange(s)) mutate("out of range", () => other);
      if (s.type === "string" && !Array.isArray(s.enum))
        for (const other of ["a\u0000b", "x".repeat(4097)]) mutate("out of bounds", () => other);
    }
    if (s.type === "array" && Array.isArray(value))
      value.forEach((item, i) => walk(item, s.items as Schema, [...steps, i]));
    if (s.properties !== undefined && typeof value === "object" && value !== null && !Array.isArray(value)) {
      // A computed key defines an own member, `__proto__` included (a literal `__proto__:` would set the prototype).
      mutate("unknown member", (old) => ({ ...(old as Record<string, unknown>), [unknownName]: "x" }));
      const properties = s.properties as Record<string, Schema>;
      for (const [name, child] of Object.entries(value as Record<string, unknown>))
        if (properties[name] !== undefined) walk(child, properties[name], [...steps, name]);
    } else if (typeof s.additionalProperties === "object" && typeof value === "object" && value !== null) {
      for (const [key, child] of Object.entries(value as Record<string, unknown>))
        walk(child, s.additionalProperties as Schema, [...steps, key]);
    }
  };
  walk(root, schema, []);
  return out;
}

/** Names of unknown members: an ordinary one, every hostile one, and one longer than any bound. */
export const UNKNOWN_NAMES: readonly string[] = ["bogusMember", ...HOSTILE_NAMES, "y".repeat(5000)];

/** Invalid variants of the bodies `valid` generates: one mutation each, chosen by fast-check. */
export function invalidBodies(valid: fc.Arbitrary<unknown>, schema: Schema): fc.Arbitrary<Mutation> {
  return fc
    .tuple(valid, fc.constantFrom(...UNKNOWN_NAMES))
    .chain(([body, name]) => fc.constantFrom(...mutationsOf(body, schema, name)));
}

/**
 * Valid values of a declared field, derived from its zod schema (fast-check): a small arbitrary per zod type
 * (string, with its regex or format; boolean; enum; array; record; object), filtered by the field's own schema so
 * every rule it declares holds. What zod cannot tell (which uids exist, which capabilities the caller holds, what a
 * duration looks like) comes from `known`, keyed by the field's path ("parentUid", "staticKeys.expirationTime").
 *
 * Used by the round trip of every declared field (./declared-fields.test.ts) and the fuzz tests (../fuzz).
 */
import fc from "fast-check";
import { z } from "zod";

/** Values for fields zod cannot generate on its own, by path (a top-level name or `block.member`). */
export type Known = Record<string, fc.Arbitrary<unknown>>;

type Check = { check?: string; format?: string; pattern?: RegExp; minimum?: number; maximum?: number };

function checksOf(schema: z.ZodType): Check[] {
  const checks = (schema as unknown as { _zod: { def: { checks?: { _zod: { def: Check } }[] } } })._zod.def
    .checks;
  return (checks ?? []).map((c) => c._zod.def);
}

/** Whether the schema accepts an absent value. */
export function isOptional(schema: z.ZodType): boolean {
  return schema.safeParse(undefined).success;
}

function unwrapped(schema: z.ZodType): z.ZodType {
  let inner = schema;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodDefault) inner = inner.unwrap() as z.ZodType;
  return inner;
}

const HOUR = 3_600_000;

function stringOf(schema: z.ZodType): fc.Arbitrary<string> {
  const format = (schema as unknown as { _zod: { def: { format?: string } } })._zod.def.format;
  if (format === "email") return fc.stringMatching(/^[a-z0-9]{1,10}@[a-z0-9]{1,10}\.[a-z]{2,4}$/);
  if (format === "url") return fc.webUrl().map((url) => url.replace(/^https?:/, "https:"));
  if (format === "datetime")
    return fc
      .integer({ min: 2, max: 24 * 30 })
      .map((hours) => new Date(Date.now() + hours * HOUR).toISOString());
  const checks = checksOf(schema);
  const pattern = checks.find((c) => c.format === "regex")?.pattern;
  if (pattern !== undefined) return fc.stringMatching(pattern);
  const min = checks.find((c) => c.check === "min_length")?.minimum ?? 0;
  return fc.string({ minLength: Math.max(min, 1), maxLength: 24 });
}

/** Valid values of `schema` (never undefined; see fieldValue for optional fields). */
export function valueOf(schema: z.ZodType, path: string, known: Known): fc.Arbitrary<unknown> {
  const given = known[path];
  if (given !== undefined) return given.filter((v) => schema.safeParse(v).success);
  const inner = unwrapped(schema);
  let arbitrary: fc.Arbitrary<unknown>;
  const type = (inner as unknown as { _zod: { def: { type: string } } })._zod.def.type;
  if (type === "string") arbitrary = stringOf(inner);
  else if (inner instanceof z.ZodBoolean) arbitrary = fc.boolean();
  else if (inner instanceof z.ZodEnum) arbitrary = fc.constantFrom(...(inner.options as unknown[]));
  else if (inner instanceof z.ZodArray) {
    const max = checksOf(inner).find((c) => c.check === "max_length")?.maximum ?? 3;
    const min = checksOf(inner).find((c) => c.check === "min_length")?.minimum ?? 0;
    arbitrary = fc.array(valueOf(inner.element as z.ZodType, `${path}[]`, known), {
      minLength: min,
      maxLength: Math.min(max, 3),
    });
  } else if (inner instanceof z.ZodRecord) {
    const def = (inner as unknown as { _zod: { def: { valueType: z.ZodType } } })._zod.def;
    arbitrary = fc.dictionary(
      fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/),
      valueOf(def.valueType, `${path}{}`, known),
      { maxKeys: 2 },
    );
  } else if (inner instanceof z.ZodObject) {
    const shape = inner.shape as Record<string, z.ZodType>;
    const members = Object.fromEntries(
      Object.entries(shape).map(([key, member]) => [key, valueOf(member, `${path}.${key}`, known)]),
    );
    const requiredKeys = Object.keys(shape).filter((key) => !isOptional(shape[key]!));
    arbitrary = fc.record(members, { requiredKeys });
  } else {
    throw new Error(`${path}: no arbitrary for a ${inner.constructor.name}; give one in known["${path}"]`);
  }
  return arbitrary.filter((v) => schema.safeParse(v).success);
}

/** A declared field's valid values; an optional field is sometimes absent (undefined). */
export function fieldValue(schema: z.ZodType, path: string, known: Known): fc.Arbitrary<unknown> {
  const value = valueOf(schema, path, known);
  return isOptional(schema) ? fc.option(value, { nil: undefined, freq: 4 }) : value;
}

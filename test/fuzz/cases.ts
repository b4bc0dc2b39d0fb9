/**
 * Generators shared by the fuzz tests: values that are certainly invalid for a field (so a test knows which fields
 * it broke), any text, and records of fields each valid, broken or absent.
 */
import fc from "fast-check";
import { z } from "zod";
import type { ResourceDeclaration } from "../../provider/core/declaration";
import { UIDP_PATTERN } from "../../sdk/schemas/common";
import { isOptional, valueOf, type Known } from "../provider/arbitraries";

/** Generated inputs and the fields deliberately made invalid. */
export interface Case {
  inputs: Record<string, unknown>;
  broken: string[];
  /** Fields that may be named too, or not (a whole-object rule zod skips when a field has a type error). */
  maybe?: string[];
}

/** A field: its valid values, its certainly-invalid values, and whether it may be left out. */
export interface Field {
  valid: fc.Arbitrary<unknown>;
  invalid: fc.Arbitrary<unknown>;
  optional?: boolean;
}

/** Values no string field accepts. */
export const notAString = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.double({ noNaN: false }),
  fc.boolean(),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }),
);

/** Strings that are not uids (a 40- or 16-hex root, then 16-hex segments, joined by '/'). */
export const notAUid = fc.oneof(
  notAString,
  fc.constantFrom("", "abc", "0123456789ABCDEF", "0123456789abcdef/", "/0123456789abcdef", "0123456789abcde"),
  fc.string({ maxLength: 20 }).filter((s) => !UIDP_PATTERN.test(s)),
);

/** Control characters the service refuses (C0 but TAB, LF, CR; DEL; C1) and lone surrogates (emulator/bounds.ts). */
const REFUSED_IN_TEXT =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Any text the service accepts in a free-text field: ASCII, full Unicode, TAB/LF/CR, long (up to 4096). */
export const anyText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }).map((s) => s.replace(REFUSED_IN_TEXT, "")),
  fc.string({ minLength: 2000, maxLength: 4000 }),
);

/** Text every string field refuses: a control character, a lone surrogate, or more than 4096 characters. */
export const refusedText = fc.oneof(
  fc
    .tuple(fc.string({ maxLength: 10 }), fc.constantFrom("\u0000", "\u0007", "\u001b", "\u007f", "\u0085"))
    .map(([s, c]) => `${s}${c}${s}`),
  fc.tuple(fc.string({ maxLength: 10 }), fc.constantFrom("\ud800", "\udfff")).map(([s, c]) => `${c}${s}`),
  fc.string({ minLength: 4097, maxLength: 4200 }),
);

/** Builds the case arbitrary of a resource from its fields: each one valid (mostly), invalid, or absent. */
export function caseOf(fields: Record<string, Field>): fc.Arbitrary<Case> {
  const entries = Object.entries(fields).map(([name, field]) => {
    const choices: fc.WeightedArbitrary<{ value?: unknown; broken: boolean; present: boolean }>[] = [
      { arbitrary: field.valid.map((value) => ({ value, broken: false, present: true })), weight: 6 },
      { arbitrary: field.invalid.map((value) => ({ value, broken: true, present: true })), weight: 1 },
    ];
    if (field.optional)
      choices.push({ arbitrary: fc.constant({ broken: false, present: false }), weight: 2 });
    else choices.push({ arbitrary: fc.constant({ broken: true, present: false }), weight: 1 }); // required, absent
    return fc.oneof(...choices).map((choice) => ({ name, ...choice }));
  });
  return fc.tuple(...entries).map((chosen) => {
    const inputs: Record<string, unknown> = {};
    const broken: string[] = [];
    for (const c of chosen) {
      if (c.present) inputs[c.name] = c.value;
      if (c.broken) broken.push(c.name);
    }
    return { inputs, broken: broken.sort() };
  });
}

/** The top-level argument a failure names: "claimMatch.issuer" → "claimMatch", "capabilities[1]" → "capabilities". */
export const topLevel = (property: string): string => property.split(/[.[]/)[0]!;

/** Values of the wrong type for a schema (never null: the kit reads a null optional as unset). */
function wrongType(schema: z.ZodType): fc.Arbitrary<unknown> {
  const valid = (v: unknown) => schema.safeParse(v).success;
  return fc
    .oneof(
      fc.integer(),
      fc.boolean(),
      fc.string({ maxLength: 3 }),
      fc.constant([7]),
      fc.constant({ notAField: 7 }),
    )
    .filter((v) => !valid(v));
}

/**
 * The fields of a resource's cases, in its declaration's order: every declared API input (and `common`), each
 * with the generator `given` names, or else one derived from its zod schema (./../provider/arbitraries: valid
 * values by its declared rules, wrong-typed ones as broken, optional when the schema accepts absent). A field added
 * to a declaration is thereby fuzzed with no edit here.
 */
export function fieldsOf(
  declaration: ResourceDeclaration,
  given: Record<string, Field>,
  known: Known,
): Record<string, Field> {
  const keys = [
    ...declaration.apiInputs,
    ...Object.keys(given).filter((k) => !declaration.apiInputs.includes(k)),
  ];
  return Object.fromEntries(
    keys.map((key) => {
      const schema = declaration.inputs[key]?.schema;
      const field: Field =
        given[key] ??
        (schema === undefined
          ? (() => {
              throw new Error(`${declaration.name}: no generator for ${key}`);
            })()
          : { valid: valueOf(schema, key, known), invalid: wrongType(schema), optional: isOptional(schema) });
      return [key, field];
    }),
  );
}

/**
 * Parsing that keeps every key of a map. zod leaves a record key named `__proto__` out of what it returns (it will
 * not assign one), so a map whose keys are free (`claimMatch.claims`, `github.appInstallations`,
 * `chainguard.serviceBindings`) would lose that key while the answer said success. A protobuf map<string, ...>
 * takes any string as a key, so `parseKeepingKeys` parses with the schema, then puts back each map key the input
 * owns and the result lacks: its value parsed by the map's value schema and defined as an own property (never
 * assigned, which would set the prototype). A value that breaks its schema is an issue at its path, as any other.
 */
import { z } from "zod";

/** The zod definition of a schema (zod 4 keeps it on `_zod.def`). */
interface Def {
  type: string;
  shape?: Record<string, z.ZodTypeAny>;
  innerType?: z.ZodTypeAny;
  in?: z.ZodTypeAny;
  out?: z.ZodTypeAny;
  element?: z.ZodTypeAny;
  keyType?: z.ZodTypeAny;
  valueType?: z.ZodTypeAny;
  options?: z.ZodTypeAny[];
  getter?: () => z.ZodTypeAny;
}

const defOf = (schema: z.ZodTypeAny): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Sets an own property whatever its name (`__proto__` included). */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The schema under wrappers that keep the value's shape (optional, nullable, default, lazy; a pipe's input). */
function unwrap(schema: z.ZodTypeAny): z.ZodTypeAny {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (def.innerType !== undefined) current = def.innerType;
    else if (def.type === "pipe" && def.in !== undefined) {
      // A transform changes the shape: only a pipe into another schema (not a transform) keeps it.
      if (def.out !== undefined && defOf(def.out).type === "transform") return current;
      current = def.in;
    } else if (def.type === "lazy" && def.getter !== undefined) current = def.getter();
    else return current;
  }
}

/**
 * `output` (what `schema` made of `input`) with the map keys zod left out put back; issues of their values are
 * pushed to `issues` with their paths.
 */
function restore(
  schema: z.ZodTypeAny,
  input: unknown,
  output: unknown,
  path: PropertyKey[],
  issues: z.core.$ZodIssue[],
): unknown {
  const def = defOf(unwrap(schema));
  switch (def.type) {
    case "object": {
      if (!isPlainObject(input) || !isPlainObject(output) || def.shape === undefined) return output;
      for (const key of Object.keys(def.shape))
        if (Object.hasOwn(input, key) && Object.hasOwn(output, key))
          defineOwn(output, key, restore(def.shape[key]!, input[key], output[key], [...path, key], issues));
      return output;
    }
    case "record": {
      if (!isPlainObject(input) || !isPlainObject(output) || def.valueType === undefined) return output;
      // Rebuilt in the input's order, so a key put back keeps its place.
      const map: Record<string, unknown> = {};
      for (const key of Object.keys(input)) {
        const at = [...path, key];
        if (Object.hasOwn(output, key)) {
          defineOwn(map, key, restore(def.valueType, input[key], output[key], at, issues));
          continue;
        }
        const keyOk = def.keyType === undefined || def.keyType.safeParse(key).success;
        const parsed = def.valueType.safeParse(input[key]);
        if (!keyOk)
          issues.push({ code: "custom", path: at, message: `${key} is not a valid key`, input: key });
        else if (!parsed.success)
          for (const issue of parsed.error.issues) issues.push({ ...issue, path: [...at, ...issue.path] });
        else defineOwn(map, key, restore(def.valueType, input[key], parsed.data, at, issues));
      }
      return map;
    }
    case "array":
      if (!Array.isArray(input) || !Array.isArray(output) || def.element === undefined) return output;
      return output.map((item, i) => restore(def.element!, input[i], item, [...path, i], issues));
    case "union": {
      const option = (def.options ?? []).find((o) => o.safeParse(input).success);
      return option === undefined ? output : restore(option, input, output, path, issues);
    }
    default:
      return output;
  }
}

/** `schema.safeParse(input)`, keeping every key of every map (see the module's doc). */
export function parseKeepingKeys<S extends z.ZodTypeAny>(
  schema: S,
  input: unknown,
): z.ZodSafeParseResult<z.output<S>> {
  const result = schema.safeParse(input);
  if (!result.success) return result;
  const issues: z.core.$ZodIssue[] = [];
  const data = restore(schema, input, result.data, [], issues) as z.output<S>;
  if (issues.length > 0)
    return { success: false, error: new z.ZodError(issues) } as z.ZodSafeParseResult<z.output<S>>;
  return { success: true, data };
}

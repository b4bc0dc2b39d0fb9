/**
 * Which members a request body may carry, at any depth, read from the wire schemas the SDK uses (sdk/schemas):
 * a member that no schema names is code 3 naming its path (`oidc.bogus`, `github.appInstallations.x.bogus`),
 * the same on create and on update, before anything else is checked. zod objects strip unknown keys when they
 * parse, so without this a nested member would be dropped silently while the answer said 200.
 */
import type { z } from "zod";
import { withArticle } from "../sdk/words";
import { invalidArgument } from "./errors";

/** The zod definition of a schema (zod 4 keeps it on `_zod.def`). */
interface Def {
  type: string;
  shape?: Record<string, z.ZodTypeAny>;
  innerType?: z.ZodTypeAny;
  in?: z.ZodTypeAny;
  element?: z.ZodTypeAny;
  valueType?: z.ZodTypeAny;
  options?: z.ZodTypeAny[];
  getter?: () => z.ZodTypeAny;
}

const defOf = (schema: z.ZodTypeAny): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The schema under wrappers that do not change which members a value may have. */
function unwrap(schema: z.ZodTypeAny): z.ZodTypeAny {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (def.innerType !== undefined) current = def.innerType;
    else if (def.type === "pipe" && def.in !== undefined) current = def.in;
    else if (def.type === "lazy" && def.getter !== undefined) current = def.getter();
    else return current;
  }
}

/** The member names of an object schema, or undefined when the schema is no object (for the update mask). */
export function objectMembers(schema: z.ZodTypeAny): string[] | undefined {
  const def = defOf(unwrap(schema));
  return def.type === "object" && def.shape !== undefined ? Object.keys(def.shape) : undefined;
}

/**
 * Paths of the members of `value` that `schema` does not name, at any depth (maps and lists are walked; a value
 * of the wrong type is left to the schema's own check). `allowed` are extra names accepted at the top level
 * (output-only members a client may echo).
 */
export function unknownMembers(
  schema: z.ZodTypeAny,
  value: unknown,
  allowed: readonly string[] = [],
  path = "",
): string[] {
  const def = defOf(unwrap(schema));
  const at = (key: string) => (path === "" ? key : `${path}.${key}`);
  switch (def.type) {
    case "object": {
      if (!isPlainObject(value) || def.shape === undefined) return [];
      const shape = def.shape;
      return Object.entries(value).flatMap(([key, member]) => {
        // An own member of the shape only: `constructor` or `__proto__` are names a client sent, not ours.
        if (!Object.hasOwn(shape, key)) return allowed.includes(key) ? [] : [at(key)];
        return unknownMembers(shape[key]!, member, [], at(key));
      });
    }
    case "record":
      if (!isPlainObject(value) || def.valueType === undefined) return [];
      return Object.entries(value).flatMap(([key, member]) =>
        unknownMembers(def.valueType!, member, [], at(key)),
      );
    case "array":
      if (!Array.isArray(value) || def.element === undefined) return [];
      return value.flatMap((item, i) => unknownMembers(def.element!, item, [], `${path}[${i}]`));
    case "union": {
      // The option that explains the value best: none unknown if any option names every member.
      const found = (def.options ?? []).map((option) => unknownMembers(option, value, [], path));
      return (
        found.reduce<string[] | undefined>(
          (best, f) => (best === undefined || f.length < best.length ? f : best),
          undefined,
        ) ?? []
      );
    }
    default:
      return [];
  }
}

/** Where an unknown path belongs: "a group" or "an identity" at the top level, "oidc" for `oidc.bogus`. */
function ownerOf(path: string, label: string): string {
  const cut = path.lastIndexOf(".");
  return cut === -1 ? withArticle(label) : path.slice(0, cut);
}

/**
 * Code 3 naming every member of `body` that `schema` does not know, at any depth; the same answer on create and
 * update. `allowed`: top-level names accepted besides the schema's (output-only members, see crud.ts).
 */
export function refuseUnknownMembers(
  body: unknown,
  schema: z.ZodTypeAny,
  label: string,
  allowed: readonly string[] = [],
): void {
  const unknown = unknownMembers(schema, body, allowed);
  if (unknown.length === 0) return;
  throw invalidArgument(
    `${unknown.join(", ")}: not ${unknown.length === 1 ? "a field" : "fields"} of ${unknown.length === 1 ? ownerOf(unknown[0]!, label) : withArticle(label)}`,
    unknown.map((field) => ({ field, description: `${field} is not a field of ${ownerOf(field, label)}` })),
  );
}

/**
 * A small OpenAPI 3 response checker for tests (no dependency): resolves $ref and allOf in
 * the repository's spec/openapi-v2beta1.json and checks required members and primitive types, recursively.
 * `strict` also checks enums, formats (date-time, int32, int64 strings) and refuses members the schema does not
 * name (test/fuzz/openapi.fuzz.test.ts uses it on every answer).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The OpenAPI document kept in the repository (spec/README.md says how it relates to the product spec). */
export const SPEC_PATH = join(__dirname, "..", "..", "spec", "openapi-v2beta1.json");
export type Schema = Record<string, unknown>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const spec: any = JSON.parse(readFileSync(SPEC_PATH, "utf8"));

/** `schema` with its $ref followed and its allOf parts merged (their members, required lists, type, enum, ...). */
export function resolve(schema: Schema): Schema {
  let current = schema;
  while (typeof current.$ref === "string") {
    const name = current.$ref.replace("#/components/schemas/", "");
    const target = spec.components.schemas[name] as Schema | undefined;
    if (target === undefined) throw new Error(`unresolved $ref ${current.$ref}`);
    current = { ...target, ...Object.fromEntries(Object.entries(current).filter(([k]) => k !== "$ref")) };
  }
  if (Array.isArray(current.allOf)) {
    const merged: Schema = { ...current };
    delete merged.allOf;
    for (const part of current.allOf as Schema[]) {
      const resolved = resolve(part);
      if (resolved.properties !== undefined)
        merged.properties = { ...((merged.properties as Schema) ?? {}), ...(resolved.properties as Schema) };
      if (resolved.required !== undefined)
        merged.required = [...((merged.required as string[]) ?? []), ...(resolved.required as string[])];
      for (const key of ["type", "enum", "items", "additionalProperties", "format", "readOnly"]) {
        if (resolved[key] !== undefined && merged[key] === undefined) merged[key] = resolved[key];
      }
    }
    return merged;
  }
  return current;
}

/** A member required on requests only: writeOnly, or documented as "not returned in responses" (GroupInvite.ttl). */
function requestOnly(property: Schema | undefined): boolean {
  if (property === undefined) return false;
  return property.writeOnly === true || /not returned in responses/.test(String(property.description ?? ""));
}

/** RFC 3339 with a zone, as protobuf's JSON mapping writes a Timestamp. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** A decimal string holding a signed 64-bit integer, as protobuf's JSON mapping writes int64. */
function isInt64(value: string): boolean {
  return /^-?\d{1,19}$/.test(value) && BigInt(value) >= -(2n ** 63n) && BigInt(value) < 2n ** 63n;
}

/** An RFC 3339 date-time that names a real instant (no 30 February, no hour 25). */
function isDateTime(value: string): boolean {
  const match = DATE_TIME.exec(value);
  if (match === null) return false;
  const [year, month, day, hour, minute, second] = value.split(/[-T:.Z+]/).map(Number) as number[];
  const date = new Date(Date.UTC(year!, month! - 1, day!));
  return (
    date.getUTCMonth() === month! - 1 &&
    date.getUTCDate() === day &&
    hour! < 24 &&
    minute! < 60 &&
    second! < 61
  );
}

/** Problems of `value` against `schema`, as "path: problem" strings (see the module comment for `strict`). */
export function check(value: unknown, schema: Schema, path = "$", strict = false): string[] {
  const s = resolve(schema);
  const problems: string[] = [];
  const type = s.type as string | undefined;
  if (value === null || value === undefined) return [`${path}: is ${String(value)}`];
  if (type === "string" && typeof value !== "string")
    return [`${path}: expected string, got ${typeof value}`];
  if (type === "boolean" && typeof value !== "boolean")
    return [`${path}: expected boolean, got ${typeof value}`];
  if ((type === "integer" || type === "number") && typeof value !== "number")
    return [`${path}: expected ${type}, got ${typeof value}`];
  if (type === "integer" && !Number.isInteger(value)) return [`${path}: expected integer`];
  if (strict) {
    if (Array.isArray(s.enum) && !s.enum.includes(value))
      return [`${path}: ${JSON.stringify(value)} is not one of the enum's values`];
    if (s.format === "date-time" && typeof value === "string" && !isDateTime(value))
      return [`${path}: ${JSON.stringify(value)} is not an RFC 3339 date-time`];
    if (s.format === "int64" && typeof value === "string" && !isInt64(value))
      return [`${path}: ${JSON.stringify(value)} is not an int64 string`];
    if (s.format === "int32" && typeof value === "number" && (value < -(2 ** 31) || value >= 2 ** 31))
      return [`${path}: ${value} is out of int32 range`];
  }
  if (type === "array") {
    if (!Array.isArray(value)) return [`${path}: expected array`];
    if (s.items !== undefined)
      value.forEach((item, i) => problems.push(...check(item, s.items as Schema, `${path}[${i}]`, strict)));
    return problems;
  }
  if (type === "object" || s.properties !== undefined) {
    if (typeof value !== "object" || Array.isArray(value)) return [`${path}: expected object`];
    const record = value as Record<string, unknown>;
    const properties = (s.properties as Record<string, Schema> | undefined) ?? {};
    for (const name of (s.required as string[] | undefined) ?? []) {
      if (record[name] === undefined && !requestOnly(properties[name]))
        problems.push(`${path}.${name}: required`);
    }
    for (const [name, member] of Object.entries(record)) {
      // A member name is data: `constructor` is no property of the schema's.
      const memberSchema =
        (Object.hasOwn(properties, name) ? properties[name] : undefined) ??
        (typeof s.additionalProperties === "object" ? (s.additionalProperties as Schema) : undefined);
      if (memberSchema !== undefined)
        problems.push(...check(member, memberSchema, `${path}.${name}`, strict));
      else if (strict && s.additionalProperties === undefined && s.properties !== undefined)
        problems.push(`${path}.${name}: not a member of the schema`);
    }
  }
  return problems;
}

/** The 200 response schema of an operation, with `{uid}` paths matched by template. */
export function responseSchema(method: string, path: string): Schema {
  for (const [template, operations] of Object.entries(spec.paths as Record<string, Record<string, Schema>>)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, ".+")}$`);
    if (!pattern.test(path)) continue;
    const operation = operations[method.toLowerCase()] as
      { responses?: Record<string, { content?: Record<string, { schema: Schema }> }> } | undefined;
    const schema = operation?.responses?.["200"]?.content?.["application/json"]?.schema;
    if (schema !== undefined) return schema;
  }
  throw new Error(`no OpenAPI 200 response for ${method} ${path}`);
}

export function checkResponse(method: string, path: string, body: unknown, strict = false): string[] {
  return check(body, responseSchema(method, path), "$", strict);
}

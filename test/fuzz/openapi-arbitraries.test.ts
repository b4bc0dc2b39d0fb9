/**
 * The generators of the OpenAPI fuzz test (./openapi-arbitraries.ts) do what they say: a generated valid body
 * conforms to its OpenAPI schema (strictly), and every mutation of it does not, whatever the unknown member is
 * named (`__proto__`, `constructor`, ...). Fixed seed.
 */
import fc from "fast-check";
import { check, spec, type Schema } from "../emulator/openapi";
import { UNKNOWN_NAMES, arbitraryOf, mutationsOf } from "./openapi-arbitraries";

const CREATE_SCHEMAS = Object.entries(spec.paths as Record<string, Record<string, unknown>>)
  .filter(([, operations]) => operations.post !== undefined)
  .map(([path, operations]) => {
    const content = (operations.post as { requestBody?: { content: Record<string, { schema: Schema }> } })
      .requestBody?.content;
    return [path, content === undefined ? undefined : Object.values(content)[0]?.schema] as const;
  })
  .filter((entry): entry is readonly [string, Schema] => entry[1] !== undefined);

test("there are request bodies to generate", () => {
  expect(CREATE_SCHEMAS.length).toBeGreaterThanOrEqual(8);
});

test.each(CREATE_SCHEMAS)("POST %s: valid bodies conform, every mutation does not", (_path, schema) => {
  fc.assert(
    fc.property(arbitraryOf(schema, {}), fc.constantFrom(...UNKNOWN_NAMES), (body, name) => {
      expect(check(body, schema, "$", true)).toEqual([]);
      for (const mutation of mutationsOf(body, schema, name)) {
        if (mutation.kind === "out of bounds") continue; // the service's limits, not the schema's
        expect([mutation.at, check(mutation.body, schema, "$", true)]).not.toEqual([mutation.at, []]);
      }
    }),
    { seed: 27, numRuns: 25 },
  );
});

test("map keys include the hostile names, kept as own keys through JSON", () => {
  const schema = { type: "object", additionalProperties: { type: "string" } } as Schema;
  const keys = new Set(
    fc
      .sample(arbitraryOf(schema, {}), { seed: 27, numRuns: 400 })
      .flatMap((map) => Object.keys(JSON.parse(JSON.stringify(map)) as object)),
  );
  for (const name of ["__proto__", "constructor", "toString", ""])
    expect([name, keys.has(name)]).toEqual([name, true]);
});

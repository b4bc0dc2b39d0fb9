/**
 * A map's keys are free (protobuf map<string, ...>): `__proto__`, `constructor` and the like are keys like any
 * other, kept by the SDK when it reads an answer and by every side that parses with the wire schemas
 * (sdk/schemas/own-keys.ts; zod alone leaves a `__proto__` record key out).
 */
import fc from "fast-check";
import * as schemas from "../../sdk/schemas";
import { parseKeepingKeys } from "../../sdk/schemas/own-keys";
import { answer, harness, FOLDER } from "./helpers";

const HOSTILE = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", ""];
const key = fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ minLength: 1, maxLength: 6 }));
const NOW = "2026-01-02T03:04:05.678Z";

/** JSON text of an identity whose claims are `claims` (own keys, `__proto__` included). */
const identityText = (claims: [string, string][]): string =>
  `{"uid":"${FOLDER}/00000000000000aa","name":"ci","createTime":"${NOW}","claimMatch":{"issuer":"https://i",` +
  `"subject":"s","claims":{${claims.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}}}`;

test("parsing keeps every map key, at any depth, as an own key with its parsed value (property)", () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.tuple(key, fc.string()), { selector: ([k]) => k, maxLength: 6 }),
      (claims) => {
        const parsed = parseKeepingKeys(schemas.Identity, JSON.parse(identityText(claims)));
        expect(parsed.success).toBe(true);
        const got = (parsed.data as { claimMatch: { claims: Record<string, unknown> } }).claimMatch.claims;
        expect(Object.getOwnPropertyNames(got).sort()).toEqual(claims.map(([k]) => k).sort());
        for (const [k, v] of claims)
          expect([k, Object.getOwnPropertyDescriptor(got, k)?.value]).toEqual([k, v]);
        expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
      },
    ),
    { seed: 32, numRuns: 200 },
  );
});

test("a map value under a key zod leaves out is still checked against its schema, at its path", () => {
  const parsed = parseKeepingKeys(
    schemas.Identity,
    JSON.parse(identityText([]).replace('"claims":{}', '"claims":{"__proto__":5}')),
  );
  expect(parsed.success).toBe(false);
  expect(parsed.error?.issues.map((i) => i.path.join("."))).toEqual(["claimMatch.claims.__proto__"]);
});

test("the client returns an answer's map keys as the service sent them", async () => {
  const { api, client } = harness();
  answer(
    api,
    200,
    identityText([
      ["__proto__", "a"],
      ["constructor", "b"],
    ]),
  );
  const identity = await client.identities.get(`${FOLDER}/00000000000000aa`);
  const claims = (identity.claimMatch as { claims: Record<string, string> }).claims;
  expect(Object.keys(claims).sort()).toEqual(["__proto__", "constructor"]);
  expect(JSON.stringify(claims)).toBe('{"__proto__":"a","constructor":"b"}');
});

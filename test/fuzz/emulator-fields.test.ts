/**
 * Fuzzing the emulator's create and update routes field by field (fast-check, fixed seed, bounded runs).
 *
 * test/emulator/property.test.ts throws malformed requests at every route (bad JSON, paths, methods, queries)
 * and checks there is never a 5xx. This one complements it with near-valid bodies: each field of a create or
 * PATCH body is valid, absent, or deliberately broken, and the generator knows which. Properties:
 *   - never a 5xx;
 *   - a body with broken fields gets HTTP 400 / code 3 whose BadRequest fieldViolations name exactly those fields
 *     (top-level), and nothing changes (the collection, and for a PATCH the object, read the same before/after);
 *   - a valid body gets 200 and the object read back holds what was sent.
 */
import fc from "fast-check";

import { details, start, type Api } from "../emulator/helpers";
import { anyText, caseOf, notAString, notAUid, refusedText, topLevel, type Case } from "./cases";

const SEED = 20261122;
const RUNS = Number(process.env.FUZZ_RUNS ?? 100);

let api: Api;
let org: string;
let folder: string;
let identity: string;
let viewer: string;
const patched: Record<string, string> = {};

beforeAll(async () => {
  api = await start();
  org = api.emulator.orgUid;
  viewer = (await api.get("/iam/v2beta1/roles?name=viewer")).body.roles[0].uid;
  folder = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "fuzz" })).body.uid;
  identity = (
    await api.post(`/iam/v2beta1/identities/${folder}`, {
      name: "bot",
      claimMatch: { issuer: "https://i.example.com", subject: "s" },
    })
  ).body.uid;
  patched.groups = (await api.post(`/iam/v2beta1/groups/${folder}`, { name: "patch-me" })).body.uid;
  patched.identities = identity;
  patched.roles = (
    await api.post(`/iam/v2beta1/roles/${folder}`, {
      name: "patch-me",
      capabilities: ["CAP_IAM_GROUPS_LIST"],
    })
  ).body.uid;
});
afterAll(() => api.emulator.close());

const groupName = {
  valid: fc.stringMatching(/^[a-z0-9 ._-]{1,30}$/),
  invalid: fc.oneof(notAString, fc.constantFrom("", "Upper", "slash/name", "ünï", "tab\tname")),
};
const text = { valid: anyText, invalid: fc.oneof(notAString, refusedText) };
const nonEmpty = {
  valid: fc.string({ minLength: 1, maxLength: 40 }),
  invalid: fc.oneof(notAString, fc.constant(""), refusedText, fc.constant("line\nbreak")),
};
const claimMatch = {
  valid: fc.record(
    {
      issuer: fc.webUrl(),
      subject: fc.string({ minLength: 1, maxLength: 20 }),
      subjectPattern: fc.constantFrom("^main$", ".*", "repo:acme/[a-z]+"),
      audience: fc.string({ minLength: 1, maxLength: 20 }),
      claims: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 8 }), {
        maxKeys: 2,
      }),
    },
    { requiredKeys: ["issuer", "subject"] },
  ),
  invalid: fc.oneof(
    notAString.filter((v) => v === null || typeof v !== "object" || Array.isArray(v)),
    fc.constant({ issuer: 7, subject: "s" }),
    fc.constant({ issuer: "https://i", claims: { k: 1 } }),
    // Strict exchange rules: both an issuer and a subject rule, non-empty, RE2 patterns that compile alone.
    fc.constant({ issuer: "https://i" }),
    fc.constant({ issuer: "https://i", subject: "" }),
    fc.constant({ issuer: "https://i", subjectPattern: "" }),
    fc.constant({ issuerPattern: "", subject: "s" }),
    fc.constant({ subject: "s" }),
    fc.constant({ issuer: "https://i", subjectPattern: "only-x)|(.*" }),
    fc.constant({ issuer: "https://i", subjectPattern: "(a)\\1" }),
    fc.constant({ issuer: "https://i", subjectPattern: "(?=a)a" }),
  ),
};
const capabilities = {
  valid: fc.array(fc.constantFrom("CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST", "CAP_TAG_LIST"), {
    minLength: 1,
    maxLength: 3,
  }),
  invalid: fc.oneof(
    fc.constant([]),
    fc.constant(["not a capability"]),
    fc.constant(["CAP_NOT_A_REAL_CAPABILITY"]),
    fc.constant("CAP_REPO_LIST"),
    fc.constant([3]),
    fc.constant(null),
  ),
};

interface Route {
  name: string;
  method: "POST" | "PATCH";
  collection: string;
  path: () => string;
  cases: () => fc.Arbitrary<Case>;
}

const routes: Route[] = [
  {
    name: "POST groups",
    method: "POST",
    collection: "groups",
    path: () => `/iam/v2beta1/groups/${folder}`,
    cases: () => caseOf({ name: groupName, description: { ...text, optional: true } }),
  },
  {
    name: "PATCH groups",
    method: "PATCH",
    collection: "groups",
    path: () => `/iam/v2beta1/groups/${patched.groups}`,
    cases: () => caseOf({ name: { ...groupName, optional: true }, description: { ...text, optional: true } }),
  },
  {
    name: "POST identities",
    method: "POST",
    collection: "identities",
    path: () => `/iam/v2beta1/identities/${folder}`,
    cases: () =>
      // An identity needs a claimMatch (issuer and subject rules) at create.
      caseOf({ name: nonEmpty, description: { ...text, optional: true }, claimMatch }),
  },
  {
    name: "PATCH identities",
    method: "PATCH",
    collection: "identities",
    path: () => `/iam/v2beta1/identities/${patched.identities}`,
    cases: () =>
      caseOf({
        name: { ...nonEmpty, optional: true },
        description: { ...text, optional: true },
        claimMatch: { ...claimMatch, optional: true },
      }),
  },
  {
    name: "POST roles",
    method: "POST",
    collection: "roles",
    path: () => `/iam/v2beta1/roles/${folder}`,
    cases: () => caseOf({ name: nonEmpty, description: { ...text, optional: true }, capabilities }),
  },
  {
    name: "PATCH roles",
    method: "PATCH",
    collection: "roles",
    path: () => `/iam/v2beta1/roles/${patched.roles}`,
    cases: () =>
      caseOf({
        name: { ...nonEmpty, optional: true },
        description: { ...text, optional: true },
        capabilities: { ...capabilities, optional: true },
      }),
  },
  {
    name: "POST roleBindings",
    method: "POST",
    collection: "roleBindings",
    path: () => `/iam/v2beta1/roleBindings/${folder}`,
    cases: () =>
      caseOf({
        identityUid: { valid: fc.constant(identity), invalid: notAUid },
        roleUid: { valid: fc.constant(viewer), invalid: notAUid },
      }),
  },
];

/** The collection under the organization and, for a PATCH, the target object: what must not change. */
async function snapshot(route: Route): Promise<string> {
  const list = await api.get(
    `/iam/v2beta1/${route.collection}?uidp.descendants_of=${org}&page_size=200&order_by=uid`,
  );
  const target = route.method === "PATCH" ? (await api.get(route.path())).text : "";
  return `${list.text}\n${target}`;
}

describe.each(routes)("$name with valid, absent and broken fields", (route) => {
  test("never a 5xx; broken fields are named exactly and change nothing; valid bodies are stored as sent", async () => {
    await fc.assert(
      fc.asyncProperty(route.cases(), async ({ inputs, broken }) => {
        const before = await snapshot(route);
        // A PATCH names its fields in updateMask: each is then replaced whole (AIP-134), so "stored as sent" holds
        // for message fields too (without a mask a partial message would merge; test/emulator/update-mask.test.ts).
        const sent = Object.keys(inputs).filter((k) => inputs[k] !== undefined);
        const path = route.method === "PATCH" ? `${route.path()}?updateMask=${sent.join(",")}` : route.path();
        const response = await api.call(route.method, path, { body: inputs });
        expect(response.status).toBeLessThan(500);
        if (broken.length > 0) {
          expect(response.status).toBe(400);
          expect(response.body.code).toBe(3);
          const named = [...new Set(details(response.body).fieldViolations.map((v) => topLevel(v.field)))];
          expect(named.sort()).toEqual(broken);
          expect(await snapshot(route)).toBe(before);
          return;
        }
        expect(response.status).toBe(200);
        const stored = (await api.get(`/iam/v2beta1/${route.collection}/${response.body.uid}`)).body;
        if (route.collection === "roleBindings") {
          expect([stored.identity?.uid, stored.role?.uid]).toEqual([inputs.identityUid, inputs.roleUid]);
        } else {
          for (const [field, value] of Object.entries(inputs)) expect(stored[field]).toEqual(value);
        }
      }),
      { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: 15_000 },
    );
  }, 30_000);
});

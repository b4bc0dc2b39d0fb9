/**
 * Fuzzing the emulator's create and update routes field by field (fast-check, fixed seed, bounded runs). Each
 * route's members are its wire schema's (sdk/schemas, from the OpenAPI), each with a generator by its meaning.
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
import type { z } from "zod";
import {
  GroupCreate,
  GroupUpdate,
  IdentityCreate,
  IdentityUpdate,
  RoleBindingCreate,
  RoleCreate,
  RoleUpdate,
} from "../../sdk/schemas";
import { details, type Api, startInOrg } from "../emulator/helpers";
import { anyText, caseOf, notAString, notAUid, refusedText, topLevel, type Field } from "./cases";

const SEED = 20261122;
const RUNS = Number(process.env.FUZZ_RUNS ?? 100);

let api: Api;
let org: string;
let folder: string;
let identity: string;
let viewer: string;
const patched: Record<string, string> = {};

beforeAll(async () => {
  ({ api, org } = await startInOrg());
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

/**
 * Generators by member meaning, a collection's own before the common ones. Which members a route's body has is
 * never listed here: it is read from the wire schema the emulator validates with (sdk/schemas, composed from the
 * OpenAPI), so a member added there is fuzzed here or the test below says it needs a generator.
 */
const generators = (): Record<string, Record<string, Field>> => ({
  "*": { name: nonEmpty, description: text, company: text, claimMatch, capabilities },
  groups: { name: groupName },
  // The identity and role of the world (made in beforeAll).
  roleBindings: {
    identityUid: { valid: fc.constant(identity), invalid: notAUid },
    roleUid: { valid: fc.constant(viewer), invalid: notAUid },
  },
});

/** Members a route's schema has that this test leaves to others, each with why. */
const LEFT_OUT: Record<string, Record<string, string>> = {
  groups: {
    kind: "only an organization's create takes it (OpenAPI Group.kind); test/fuzz/openapi.fuzz.test.ts",
  },
  identities: Object.fromEntries(
    ["staticKeys", "awsIdentity", "servicePrincipal"].map((kind) => [
      kind,
      "one kind per identity (a oneof): this test fuzzes claimMatch; the others are test/emulator/identity-kinds.test.ts's",
    ]),
  ),
};

/** Members a create must send though its schema leaves them optional, with why. */
const MUST_SEND: Record<string, Record<string, string>> = {
  identities: { claimMatch: "an identity needs one kind, and claimMatch is the one fuzzed here (LEFT_OUT)" },
};

interface Route {
  name: string;
  method: "POST" | "PATCH";
  collection: string;
  /** The body's wire schema, the one the emulator's route validates with. */
  schema: z.ZodObject;
  path: () => string;
}

/** The fields of a route's cases: every member of its schema but those LEFT_OUT, required as the schema says. */
function fieldsOf(route: Route): Record<string, Field> {
  const leftOut = LEFT_OUT[route.collection] ?? {};
  const mustSend = route.method === "POST" ? (MUST_SEND[route.collection] ?? {}) : {};
  return Object.fromEntries(
    Object.entries(route.schema.shape)
      .filter(([member]) => !Object.hasOwn(leftOut, member))
      .map(([member, schema]) => {
        const all = generators();
        const own = all[route.collection] ?? {};
        const field = Object.hasOwn(own, member) ? own[member] : all["*"]![member];
        if (field === undefined)
          throw new Error(`${route.name}: no generator for ${member}; add one or leave it out`);
        const optional =
          (schema as z.ZodType).safeParse(undefined).success && !Object.hasOwn(mustSend, member);
        return [member, { ...field, optional }];
      }),
  );
}

/** A create: POST to the collection under the test's folder. */
const create = (collection: string, schema: z.ZodObject): Route => ({
  name: `POST ${collection}`,
  method: "POST",
  collection,
  schema,
  path: () => `/iam/v2beta1/${collection}/${folder}`,
});

/** An update: PATCH of the collection's object made for it before the tests. */
const update = (collection: string, schema: z.ZodObject): Route => ({
  name: `PATCH ${collection}`,
  method: "PATCH",
  collection,
  schema,
  path: () => `/iam/v2beta1/${collection}/${patched[collection]}`,
});

const routes: Route[] = [
  create("groups", GroupCreate),
  update("groups", GroupUpdate),
  create("identities", IdentityCreate),
  update("identities", IdentityUpdate),
  create("roles", RoleCreate),
  update("roles", RoleUpdate),
  create("roleBindings", RoleBindingCreate),
];

test("every member of every route's body is fuzzed, or left out with a reason that names a member it has", () => {
  for (const route of routes) {
    const members = Object.keys(route.schema.shape);
    expect([route.name, Object.keys(fieldsOf(route)).length]).not.toEqual([route.name, 0]);
    for (const member of [
      ...Object.keys(LEFT_OUT[route.collection] ?? {}),
      ...Object.keys(MUST_SEND[route.collection] ?? {}),
    ])
      expect([route.name, member, members.includes(member)]).toEqual([route.name, member, true]);
  }
});

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
      fc.asyncProperty(caseOf(fieldsOf(route)), async ({ inputs, broken }) => {
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

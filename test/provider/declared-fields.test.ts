/**
 * Every declared field of every resource makes the whole round trip (fast-check, fixed seeds, in-process
 * emulator): for each resource of the catalogue, inputs are generated from its declaration (./arbitraries: every
 * declared API input, each valid by its zod rules, the whole valid by the cross-field rules), and
 *
 *   1. create sends each field: the object read back from the API has it (fields read by the default mapping);
 *   2. read-back returns the same inputs, and the diff against the program is empty;
 *   3. a change of one field is an update of exactly that field, or a replace of it where the declaration says so;
 *   4. update applies it (read-back returns the new inputs) and the next diff is empty.
 *
 * Across the runs every declared field must have been created, and changed, at least once: a field added to a
 * declaration but left out of create, update or read-back fails here, naming the step and the field.
 *
 * The set-valued resources (GroupAccess, IdentityAccess: a scope and a SET of bindings, not one API object) run the
 * same four steps, the API's side of step 1 being the set the scope holds (listed), and step 3's change judged by
 * the changed fields their diff reports (nothing ever replaces).
 */
import { createHash } from "node:crypto";
import fc from "fast-check";

import { FIELD_MAPPED_RESOURCES, RESOURCES, type CatalogueResource } from "../../provider/catalogue";
import type { AccessDescription } from "../../provider/iam/access-provider";
import { keyOf, listScope, resetClaims } from "../../provider/iam/access";
import { normalize, type FieldSpec } from "../../provider/core/diff";
import { readOverridden } from "../../provider/core/wire";
import { CAPABILITIES } from "../../sdk/schemas/capabilities";
import { BUILTIN_ROLES } from "../../emulator";
import { fieldValue, type Known } from "./arbitraries";
import { startHarness, type Harness } from "./harness";

const SEED = 20261125;
const RUNS_PER_FIELD = Number(process.env.ROUND_TRIP_RUNS_PER_FIELD ?? 12);

type Props = Record<string, unknown>;

let h: Harness;
let known: Known;
/** Values for the set-valued resources: their own groups, so taking a scope over touches nothing else. */
let accessKnown: Known;
let accessGroup: string;
beforeAll(async () => {
  h = await startHarness();
  const client = h.emulator.client;
  const org = h.emulator.orgUid;
  const folder = (await client.groups.create(org, { name: "round-trip" })).uid;
  const identities = await Promise.all(
    ["a", "b"].map(
      async (n) =>
        (
          await client.identities.create(folder, {
            name: `round-trip-${n}`,
            claimMatch: { issuer: "https://i.example.com", subject: n },
          })
        ).uid,
    ),
  );
  const owned = new Set(BUILTIN_ROLES.find((r) => r.name === "owner")!.capabilities);
  // A second organization: an identity provider's parent is always one.
  const org2 = (await client.groups.create(undefined, { name: "round-trip-org" })).uid;
  const groups = fc.constantFrom(org, folder, org2);
  // Built-in roles apply in every organization (a custom role only in its own).
  const roles = fc.constantFrom(
    ...BUILTIN_ROLES.slice(0, 3).map((r) => createHash("sha1").update(r.name).digest("hex")),
  );
  known = {
    parentUid: groups,
    groupUid: groups,
    identityUid: fc.constantFrom(...identities),
    roleUid: roles,
    defaultRole: roles,
    // The test runs as the organization's owner, who may grant only capabilities it holds (no escalation).
    capabilities: fc.uniqueArray(fc.constantFrom(...CAPABILITIES.filter((c) => owned.has(c))), {
      minLength: 1,
      maxLength: 4,
    }),
    // Distinct lengths: "72h" and "259200s" are the same ttl, which is no change.
    ttl: fc.constantFrom("72h", "90m", "3600s", "2d"),
    "chainguard.serviceBindings{}": fc.constantFrom(...identities),
    "staticKeys.expirationTime": fc
      .integer({ min: 1, max: 300 })
      .map((days) => new Date(Date.now() + days * 86_400_000).toISOString()),
  };
  accessGroup = (await client.groups.create(org, { name: "round-trip-access" })).uid;
  const accessGroups = fc.constantFrom(
    accessGroup,
    (await client.groups.create(accessGroup, { name: "round-trip-child" })).uid,
  );
  accessKnown = {
    groupUid: accessGroups,
    identityUid: fc.constantFrom(...identities),
    "bindings[].groupUid": accessGroups,
    "bindings[].identityUid": fc.constantFrom(...identities),
    "bindings[].roleUid": roles,
  };
});
afterAll(() => h?.close());

/** Unique names, so the objects of one run never collide with another's. */
let serial = 0;
const unique = (inputs: Props): Props =>
  typeof inputs.name === "string" ? { ...inputs, name: `${inputs.name}-${serial++}` } : inputs;

function inputsOf(resource: CatalogueResource, values: Known = known): fc.Arbitrary<Props> {
  const d = resource.declaration;
  const fields = Object.fromEntries(
    d.apiInputs.map((key) => [key, fieldValue(d.inputs[key]!.schema, key, values)]),
  );
  return fc
    .record(fields)
    .map((record) => Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)))
    .filter((inputs) => d.inputSchema.safeParse(inputs).success);
}

const kindOf = (fields: readonly FieldSpec[], key: string) =>
  fields.find((f) => f.key === key)?.kind ?? "string";

/** The same instant, give or take the request's latency (an expiry the service computes from a duration). */
const sameInstant = (a: unknown, b: unknown) =>
  typeof a === "string" && typeof b === "string" && Math.abs(Date.parse(a) - Date.parse(b)) < 60_000;

function fail(step: string, resource: CatalogueResource, key: string, detail: string): never {
  throw new Error(`${resource.declaration.name}.${key}: ${step}: ${detail}`);
}

/** Fields whose value differs between two sets of inputs, compared as the diff does. */
function differing(resource: CatalogueResource, a: Props, b: Props): string[] {
  const d = resource.declaration;
  return d.fields
    .filter(
      (f) =>
        normalize(f.kind, a[f.key] ?? d.inputs[f.key]!.default) !==
        normalize(f.kind, b[f.key] ?? d.inputs[f.key]!.default),
    )
    .map((f) => f.key);
}

/** Fails `step` on a field that `read` (a read's inputs) returns differently from what the program declares. */
function expectReadBack(step: string, resource: CatalogueResource, program: Props, read: Props): void {
  for (const field of differing(resource, read, program))
    fail(
      step,
      resource,
      field,
      `program ${JSON.stringify(program[field])}, read ${JSON.stringify(read[field])}`,
    );
}

describe.each(FIELD_MAPPED_RESOURCES.map((resource) => ({ name: resource.declaration.name, resource })))(
  "$name: every declared field round-trips",
  ({ resource }) => {
    const d = resource.declaration;
    const provider = resource.provider;
    const created = new Set<string>();
    const changed = new Set<string>();

    test("create sends it, read returns it, a change of it updates exactly it, the next diff is empty", async () => {
      const client = h.emulator.client;
      const overridden = new Set(
        resource.description.wire ? readOverridden(resource.description.wire) : d.apiInputs,
      );
      // Inputs, one declared field (half the time one the inputs set), and a new value of it (by its own rules).
      const cases = inputsOf(resource).chain((generated) => {
        const set = d.fields.map((f) => f.key).filter((key) => generated[key] !== undefined);
        return fc.tuple(
          fc.constant(generated),
          fc
            .oneof(fc.constantFrom(...set), fc.constantFrom(...d.fields.map((f) => f.key)))
            .chain((key) => fc.tuple(fc.constant(key), fieldValue(d.inputs[key]!.schema, key, known))),
        );
      });
      await fc.assert(
        fc.asyncProperty(cases, async ([generated, [key, value]]) => {
          const checked = await provider.check!({}, unique(generated));
          expect(checked.failures ?? []).toEqual([]);
          const inputs = checked.inputs as Props;

          // 1. Create sends every field: the API's object has each one read by the default mapping.
          const { id, outs } = await provider.create(inputs);
          try {
            const live = (await resource.description.get(client, id)) as Props;
            for (const field of d.apiInputs) {
              if (inputs[field] === undefined) continue;
              created.add(field);
              if (overridden.has(field) || d.writeOnly.includes(field)) continue;
              const kind = kindOf(d.fields, field);
              const same =
                normalize(kind, live[field]) === normalize(kind, inputs[field]) ||
                sameInstant(live[field], inputs[field]);
              if (!same)
                fail(
                  "create",
                  resource,
                  field,
                  `sent ${JSON.stringify(inputs[field])}, the API has ${JSON.stringify(live[field])}`,
                );
            }

            // 2. Read-back returns the same inputs; the program's next diff is empty.
            const read = await provider.read!(id, outs);
            expectReadBack("read-back", resource, inputs, read.inputs as Props);
            const after = await provider.diff!(id, read.props!, inputs);
            if (after.changes)
              fail("diff after create", resource, (after.replaces ?? []).join(",") || "?", "shows a change");

            // 3. A change of one field: an update of exactly it, or a replace where declared.
            const news = { ...inputs, [key]: key === "name" ? unique({ name: value }).name : value };
            // Removing a field without a declared default is no update of it (an association's block replaces).
            const kind = kindOf(d.fields, key);
            if (d.inputs[key]!.default === undefined && normalize(kind, value) === normalize(kind, undefined))
              return;
            if (differing(resource, inputs, news).join() !== key) return;
            const rechecked = await provider.check!(inputs, news);
            if ((rechecked.failures ?? []).length > 0) return; // the change breaks a cross-field rule
            const next = rechecked.inputs as Props;
            const diff = await provider.diff!(id, read.props!, next);
            const replaces = d.fields.find((f) => f.key === key)!.replaces === true;
            const names = [...differing(resource, inputs, next)];
            if (
              !diff.changes ||
              JSON.stringify(diff.replaces ?? []) !== JSON.stringify(replaces ? [key] : [])
            )
              fail(
                "diff",
                resource,
                key,
                `changing it gave ${JSON.stringify(diff)} (fields ${names.join(",")})`,
              );
            changed.add(key);
            if (replaces) return;

            // 4. Update applies it, and the next diff is empty.
            h.mark();
            const updated = await provider.update!(id, read.props!, next);
            const patches = h.requestsSinceMark().filter((r) => r.method === "PATCH");
            if (patches.length !== 1) fail("update", resource, key, `sent ${patches.length} PATCHes`);
            const reread = await provider.read!(id, updated.outs);
            expectReadBack("update", resource, next, reread.inputs as Props);
            const settled = await provider.diff!(id, reread.props!, next);
            if (settled.changes) fail("diff after update", resource, key, "shows a change");
          } finally {
            await provider.delete!(id, outs);
          }
        }),
        // More runs for more fields, so each is changed a few times.
        { seed: SEED, numRuns: RUNS_PER_FIELD * d.fields.length },
      );
      // Every declared field was sent by a create and changed at least once.
      expect(d.apiInputs.filter((field) => !created.has(field))).toEqual([]);
      expect(d.fields.map((f) => f.key).filter((field) => !changed.has(field))).toEqual([]);
    }, 120_000);
  },
);

/** GroupAccess and IdentityAccess: a scope and a set of bindings (../../provider/iam/access-provider). */
const SET_VALUED = RESOURCES.filter(
  (resource) => !(FIELD_MAPPED_RESOURCES as readonly CatalogueResource[]).includes(resource),
);

test("the set-valued resources are exactly the catalogue's other ones", () => {
  expect(SET_VALUED.map((r) => r.declaration.token).sort()).toEqual([
    "platform:iam:GroupAccess",
    "platform:iam:IdentityAccess",
  ]);
});

describe.each(SET_VALUED.map((resource) => ({ name: resource.declaration.name, resource })))(
  "$name: every declared field round-trips (a set-valued resource)",
  ({ resource }) => {
    const d = resource.declaration;
    const description = resource.description as AccessDescription;
    const operations = resource.operations;
    const created = new Set<string>();
    const changed = new Set<string>();
    /** The set the scope holds, as the API lists it. */
    const liveSet = async (props: Props) =>
      (await listScope(h.emulator.client, description.scopeOf(props)!)).map(keyOf).sort();
    const declaredSet = (props: Props) =>
      description.declaredOf(props, description.scopeOf(props)!).map(keyOf).sort();
    /** Fails `step` unless the scope holds, as the API lists it, exactly the set `props` declare. */
    const expectScopeHolds = async (step: string, key: string, props: Props) => {
      const live = await liveSet(props);
      const declared = declaredSet(props);
      if (JSON.stringify(live) !== JSON.stringify(declared))
        fail(step, resource, key, `declared ${declared.join(", ")}, the scope holds ${live.join(", ")}`);
    };

    test("create makes the scope hold it, read returns it, a change of it updates exactly it, the next diff is empty", async () => {
      const cases = inputsOf(resource, accessKnown).chain((generated) =>
        fc.tuple(
          fc.constant(generated),
          fc
            .constantFrom(...d.fields.map((f) => f.key))
            .chain((key) => fc.tuple(fc.constant(key), fieldValue(d.inputs[key]!.schema, key, accessKnown))),
        ),
      );
      await fc.assert(
        fc.asyncProperty(cases, async ([generated, [key, value]]) => {
          resetClaims();
          const checked = await operations.check({}, generated);
          expect(checked.failures ?? []).toEqual([]);
          const inputs = checked.inputs;

          // 1. Create: the scope holds exactly the declared set; every other field is the provider's own.
          const { id, outs } = await operations.create(inputs);
          try {
            for (const field of d.apiInputs) if (inputs[field] !== undefined) created.add(field);
            await expectScopeHolds("create", "bindings", inputs);

            // 2. Read-back returns the same inputs; the program's next diff is empty.
            const read = await operations.read(id, outs);
            expectReadBack("read-back", resource, inputs, read.inputs as Props);
            if ((await operations.diff(id, read.props!, inputs)).changes)
              fail("diff after create", resource, "?", "shows a change");

            // 3. A change of one field is an update of exactly it; nothing replaces.
            const news = { ...inputs, [key]: value };
            if (differing(resource, inputs, news).join() !== key) return;
            resetClaims();
            const rechecked = await operations.check(inputs, news);
            if ((rechecked.failures ?? []).length > 0) return; // the change breaks a cross-field rule
            const next = rechecked.inputs;
            if (differing(resource, inputs, next).join() !== key) return;
            const diff = await operations.diff(id, read.props!, next);
            // A field naming the scope (an IdentityAccess's identity) changes the set's keys with it.
            const namesScope = key in description.scopeInputs(description.scopeOf(inputs)!);
            const others = diff.changedFields.filter((f) => f !== key);
            const exact =
              diff.changedFields.includes(key) && others.every((f) => namesScope && f === "bindings");
            if (!diff.changes || diff.replaces.length > 0 || !exact)
              fail(
                "diff",
                resource,
                key,
                `changing it gave ${JSON.stringify({ ...diff, properties: undefined })}`,
              );
            changed.add(key);

            // 4. Update applies it (the scope holds the new set, no PATCH), and the next diff is empty.
            h.mark();
            const updated = await operations.update(id, read.props!, next);
            if (h.requestsSinceMark().some((r) => r.method === "PATCH"))
              fail("update", resource, key, "sent a PATCH: bindings are created and deleted, never changed");
            await expectScopeHolds("update", key, next);
            const reread = await operations.read(id, updated.outs);
            expectReadBack("update", resource, next, reread.inputs as Props);
            if ((await operations.diff(id, reread.props!, next)).changes)
              fail("diff after update", resource, key, "shows a change");
          } finally {
            // Whatever the runs left (onDelete: keep, a scope moved), so the next run starts from nothing.
            for (const b of await h.emulator.client.roleBindings.list({ descendantsOf: accessGroup }).all())
              await h.emulator.client.roleBindings.delete(b.uid);
            for (const b of await h.emulator.client.roleBindings.list({ group: accessGroup }).all())
              await h.emulator.client.roleBindings.delete(b.uid);
          }
        }),
        { seed: SEED, numRuns: RUNS_PER_FIELD * d.fields.length },
      );
      expect(d.apiInputs.filter((field) => !created.has(field))).toEqual([]);
      expect(d.fields.map((f) => f.key).filter((field) => !changed.has(field))).toEqual([]);
    }, 120_000);
  },
);

/**
 * Fuzzing the dynamic providers' arguments (fast-check, fixed seed, bounded runs), against the in-process
 * emulator.
 *
 * Every declared field of every resource (the list is the declaration's: ./cases fieldsOf) gets either a valid
 * value or, sometimes, a malformed one (wrong type, null, empty, a pattern it cannot match, a uid that is not a uid,
 * an unknown capability, a regular expression that does not compile). The generator knows which fields it broke.
 * Properties:
 *   - `check` rejects exactly when a field is broken, and its failures name exactly the broken fields (top-level
 *     name; nested paths like `claimMatch.issuer` count for `claimMatch`), with ZERO API calls;
 *   - an accepted input is created with exactly ONE API call (the POST), and the object read back through the SDK
 *     equals the inputs in every declared field (unset = its declared default, capabilities as a set).
 */
import { createHash } from "node:crypto";
import fc from "fast-check";

import type { PlatformClient } from "../../sdk";
import { FIELD_MAPPED_RESOURCES, type FieldMappedResource } from "../../provider/catalogue";
import { IDENTITY_KINDS } from "../../provider/iam/identity.declaration";
import { CAPABILITIES } from "../../sdk/schemas/capabilities";
import { BUILTIN_ROLES } from "../../emulator";
import { startHarness, type Harness } from "../provider/harness";
import type { Known } from "../provider/arbitraries";
import { anyText, caseOf, fieldsOf, notAString, notAUid, topLevel, type Case, type Field } from "./cases";

const SEED = 20261122;
const RUNS = Number(process.env.FUZZ_RUNS ?? 120);

/** Common inputs every resource accepts (left out or well-formed for creates; broken types are rejected). */
const common: Record<string, Field> = {
  profile: {
    valid: fc.constant(""),
    invalid: notAString.filter((v) => typeof v !== "string"),
    optional: true,
  },
};
/** `adopt`, on the resources that declare it. */
const adopt: Field = {
  valid: fc.constant(false),
  invalid: fc.oneof(fc.constant(null), fc.string(), fc.integer()),
  optional: true,
};

let h: Harness;
let client: PlatformClient;
let org: string;
let folder: string;
let identities: string[];
let customRole: string;
const viewer = createHash("sha1").update("viewer").digest("hex");

beforeAll(async () => {
  h = await startHarness();
  client = h.emulator.client;
  org = h.emulator.orgUid;
  folder = (await client.groups.create(org, { name: "fuzz-parent" })).uid;
  identities = await Promise.all(
    ["a", "b"].map(
      async (n) =>
        (
          await client.identities.create(folder, {
            name: `fuzz-${n}`,
            claimMatch: { issuer: "https://i.example.com", subject: n },
          })
        ).uid,
    ),
  );
  customRole = (await client.roles.create(org, { name: "fuzz-role", capabilities: ["CAP_IAM_GROUPS_LIST"] }))
    .uid;
});
afterAll(() => h?.close());

/** Values of the fields generated from their declaration that zod cannot tell (../provider/arbitraries). */
const known = (): Known => ({
  "chainguard.serviceBindings{}": fc.constantFrom(...identities),
  "staticKeys.expirationTime": fc
    .integer({ min: 1, max: 300 })
    .map((days) => new Date(Date.now() + days * 86_400_000).toISOString()),
});

/** A valid parent: the organization or a folder in it. */
const parent = (): fc.Arbitrary<string> => fc.constantFrom(org, folder);

/**
 * An invite's lifetime: exactly one of ttl and expirationTime. Neither is reported on ttl, both on
 * expirationTime (provider/iam/group-invite-schema.ts).
 */
const HOUR = 3_600_000;
const TTL_HOURS: Record<string, number> = {
  "72h": 72,
  "90m": 1.5,
  "1h30m": 1.5,
  "3600s": 1,
  "1.5h": 1.5,
  "2d": 48,
};
const lifetime: fc.Arbitrary<Case> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .constantFrom(...Object.keys(TTL_HOURS))
      .map((ttl): Case => ({ inputs: { ttl }, broken: [] })),
  },
  {
    weight: 3,
    arbitrary: fc.integer({ min: 2, max: 24 * 30 }).map((hours): Case => ({
      inputs: { expirationTime: new Date(Date.now() + hours * HOUR).toISOString() },
      broken: [],
    })),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(notAString, fc.constantFrom("", "0s", "72", "h", "3 days", "-1h"))
      .map((ttl): Case => ({ inputs: { ttl }, broken: ["ttl"] })),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(notAString, fc.constantFrom("", "tomorrow", "2026-13-01T00:00:00Z"))
      .map((expirationTime): Case => ({ inputs: { expirationTime }, broken: ["expirationTime"] })),
  },
  { weight: 1, arbitrary: fc.constant<Case>({ inputs: {}, broken: ["ttl"] }) },
  {
    weight: 1,
    arbitrary: fc.constant<Case>({
      inputs: { ttl: "1h", expirationTime: new Date(Date.now() + 5 * HOUR).toISOString() },
      broken: ["expirationTime"],
    }),
  },
);

/** The inputs an invite's lifetime is given by: a ttl or an expirationTime (a cross-field rule). */
const LIFETIME: readonly string[] = ["ttl", "expirationTime"];

/** Stands for a group made just before the case runs (an account association is one per group). */
const FRESH_GROUP = "fresh-group";
let freshCount = 0;

type Props = Record<string, unknown>;

interface Target {
  name: string;
  /** Runs; more for resources with many fields, where most cases break at least one. */
  runs?: number;
  /**
   * Generators that say more than the declaration's types (broken values of a field's own rules, uids that exist);
   * every other declared field is generated from its declaration (./cases fieldsOf).
   */
  fields: () => Record<string, Field>;
  /** The cases from the fields, where a cross-field rule decides what is broken; default caseOf. */
  cases?: (fields: Record<string, Field>) => fc.Arbitrary<Case>;
  /** Inputs the read-back cannot return as given (an invite's expiry), compared in a form of their own. */
  apart?: {
    keys: readonly string[];
    readBack: (uid: string) => Promise<Props>;
    expected: (inputs: Props) => Props;
  };
}

const OWNER_CAPABILITIES = new Set(BUILTIN_ROLES.find((r) => r.name === "owner")!.capabilities);

const sortedSet = (values: unknown): string[] => [...new Set(values as string[])].sort();

const validRegex = fc.constantFrom("^repo:acme/.*$", ".*", "[a-z]+", "^(main|release)$");
const invalidRegex = fc.constantFrom("(", "[a-", "*x", "(?<", "\\");

const claimMatchValid = fc
  .record(
    {
      issuer: fc.oneof(fc.webUrl(), fc.string({ minLength: 1, maxLength: 30 })),
      subject: fc.string({ minLength: 1, maxLength: 30 }),
      audience: fc.string({ minLength: 1, maxLength: 20 }),
      subjectPattern: validRegex,
      audiencePattern: validRegex,
      claims: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 8 }), {
        maxKeys: 2,
      }),
    },
    { requiredKeys: ["issuer", "subject"] },
  )
  .map((m) => m as Record<string, unknown>);

const claimMatchInvalid = fc.oneof(
  notAString,
  fc.constant({}),
  fc.record({ issuer: fc.constant(""), subject: fc.constant("s") }),
  fc.record({ subject: fc.constant("s") }), // no issuer rule
  fc.record({ issuer: fc.constant("https://i"), subjectPattern: invalidRegex }),
  fc.record({ issuer: fc.constant(7), subject: fc.constant("s") }),
  fc.record({ issuer: fc.constant("https://i"), subject: fc.constant("s"), claims: fc.constant({ k: 1 }) }),
);

const nonEmpty: Field = {
  valid: fc.string({ minLength: 1, maxLength: 40 }),
  invalid: fc.oneof(notAString, fc.constant("")),
};

const targets: Target[] = [
  {
    name: "Group",
    fields: () => ({
      name: {
        valid: fc.stringMatching(/^[a-z0-9 ._-]{1,30}$/),
        invalid: fc.oneof(
          notAString,
          fc.constantFrom("", "Upper", "slash/name", "ünï", "tab\t"),
          fc.string({ minLength: 1, maxLength: 10 }).filter((s) => !/^[a-z0-9 ._-]+$/.test(s)),
        ),
      },
      description: { valid: anyText, invalid: notAString, optional: true },
      // Absent: an organization (the bootstrap user is root-level, so it may create one).
      parentUid: { valid: parent(), invalid: notAUid, optional: true },
    }),
  },
  {
    name: "Identity",
    runs: 2 * RUNS,
    fields: () => ({
      parentUid: { valid: parent(), invalid: notAUid },
      name: nonEmpty,
      description: { valid: anyText, invalid: notAString, optional: true },
      claimMatch: { valid: claimMatchValid, invalid: claimMatchInvalid },
    }),
    // Exactly one kind: claimMatch (absent is broken), or one of the other kinds, given (valid or broken).
    cases: (fields) => {
      const kinds = new Set<string>(IDENTITY_KINDS);
      const rest = Object.fromEntries(Object.entries(fields).filter(([key]) => !kinds.has(key)));
      const kind = fc.oneof(
        caseOf({ claimMatch: fields.claimMatch! }),
        ...IDENTITY_KINDS.filter((k) => k !== "claimMatch").map((k) =>
          caseOf({ [k]: { ...fields[k]!, optional: true } }).filter((c) => k in c.inputs),
        ),
      );
      return fc.tuple(caseOf(rest), kind).map(([others, chosen]): Case => {
        const c = {
          inputs: { ...others.inputs, ...chosen.inputs },
          broken: [...others.broken, ...chosen.broken].sort(),
        };
        // "Exactly one of claimMatch, staticKeys, awsIdentity" is a whole-object rule, which zod skips while a
        // field has a type error: an absent claimMatch is then named on a later round, not necessarily this one.
        return !IDENTITY_KINDS.some((k) => k in c.inputs) && c.broken.length > 1
          ? { inputs: c.inputs, broken: c.broken.filter((b) => b !== "claimMatch"), maybe: ["claimMatch"] }
          : c;
      });
    },
  },
  {
    name: "Role",
    fields: () => ({
      parentUid: { valid: parent(), invalid: notAUid },
      name: nonEmpty,
      description: { valid: anyText, invalid: notAString, optional: true },
      capabilities: {
        // The fuzz runs as the organization's owner, who may grant only capabilities it holds (no escalation).
        valid: fc.array(fc.constantFrom(...CAPABILITIES.filter((c) => OWNER_CAPABILITIES.has(c))), {
          minLength: 1,
          maxLength: 6,
        }),
        invalid: fc.oneof(
          notAString.filter((v) => !Array.isArray(v)),
          fc.constant([]),
          fc.constant(["CAP_DOES_NOT_EXIST"]),
          fc.constant(["CAP_IAM_GROUPS_LIST", 3]),
          fc.constant("CAP_IAM_GROUPS_LIST"),
        ),
      },
    }),
  },
  {
    name: "RoleBinding",
    fields: () => ({
      groupUid: { valid: parent(), invalid: notAUid },
      identityUid: { valid: fc.constantFrom(...identities), invalid: notAUid },
      roleUid: {
        valid: fc.constantFrom(viewer, customRole),
        invalid: fc.oneof(notAUid, fc.constant("0123456789abcdef0123456789abcdef0123456")),
      },
    }),
  },
  {
    name: "IdentityProvider",
    runs: 4 * RUNS,
    fields: () => ({
      parentUid: { valid: fc.constant(org), invalid: fc.oneof(notAUid, fc.constant(folder)) },
      name: nonEmpty,
      description: { valid: anyText, invalid: notAString, optional: true },
      defaultRole: { valid: fc.constantFrom(viewer, customRole), invalid: notAUid },
      issuer: {
        valid: fc.webUrl().map((u) => u.replace(/^https?:/, "https:")),
        invalid: fc.oneof(
          notAString,
          fc.constantFrom("", "http://sso.example.com", "sso.example.com", "https://"),
        ),
      },
      clientId: nonEmpty,
      clientSecret: nonEmpty,
      additionalScopes: {
        valid: fc.array(fc.string({ minLength: 1, maxLength: 10 }), { maxLength: 3 }),
        invalid: fc.oneof(fc.constant([""]), fc.constant("email"), fc.constant([1]), fc.constant(null)),
        optional: true,
      },
      groupsClaim: { valid: fc.string({ maxLength: 10 }), invalid: notAString, optional: true },
      pkceEnabled: {
        valid: fc.boolean(),
        // Not null: the provider's check reads a null pkceEnabled as its default, false (identity-provider.provider.ts).
        invalid: fc.oneof(fc.constant("true"), fc.integer()),
        optional: true,
      },
    }),
  },
  {
    name: "AccountAssociation",
    runs: 2 * RUNS,
    fields: () => ({
      groupUid: { valid: fc.constant(FRESH_GROUP), invalid: notAUid },
      name: nonEmpty,
      description: { valid: anyText, invalid: notAString, optional: true },
      amazon: {
        valid: fc.stringMatching(/^\d{12}$/).map((account) => ({ account })),
        invalid: fc.oneof(
          notAString.filter((v) => v === null || typeof v !== "object" || Array.isArray(v)),
          fc.constantFrom({ account: "123" }, { account: 123456789012 }, { account: "12345678901a" }),
        ),
        optional: true,
      },
      google: {
        valid: fc.record({
          projectId: fc.string({ minLength: 1, maxLength: 20 }),
          projectNumber: fc.string({ minLength: 1, maxLength: 20 }),
        }),
        invalid: fc.constantFrom(
          { projectId: "", projectNumber: "1" },
          { projectId: "p", projectNumber: "" },
          "p",
        ),
        optional: true,
      },
    }),
  },
  {
    name: "GroupInvite",
    fields: () => ({
      groupUid: { valid: parent(), invalid: notAUid },
      roleUid: { valid: fc.constantFrom(viewer, customRole), invalid: notAUid },
      email: {
        valid: fc.stringMatching(/^[a-z0-9]{1,10}@[a-z0-9]{1,10}\.[a-z]{2,4}$/),
        invalid: fc.oneof(notAString, fc.constantFrom("", "not-an-email", "a@")),
        optional: true,
      },
      singleUse: {
        valid: fc.boolean(),
        invalid: fc.oneof(fc.constant("yes"), fc.integer()),
        optional: true,
      },
    }),
    // ttl or expirationTime, exactly one: generated together (`lifetime`).
    cases: (fields) =>
      fc
        .tuple(
          caseOf(Object.fromEntries(Object.entries(fields).filter(([key]) => !LIFETIME.includes(key)))),
          lifetime,
        )
        .map(([others, life]) => {
          const inputs = { ...others.inputs, ...life.inputs };
          // The ttl-or-expirationTime rule is checked on the whole object, which zod skips when a field has a
          // type error: then check names the other fields alone, and the rule comes on the next round.
          const crossField = "ttl" in inputs === "expirationTime" in inputs;
          if (crossField && others.broken.length > 0)
            return { inputs, broken: others.broken, maybe: life.broken };
          return { inputs, broken: [...others.broken, ...life.broken].sort() };
        }),
    apart: {
      keys: LIFETIME,
      readBack: async (uid) => {
        const invite = await client.groupInvites.get(uid);
        return {
          expiresInMinutes: Math.round((Date.parse(invite.expirationTime ?? "") - Date.now()) / 60_000),
        };
      },
      expected: (i) => ({
        // To the minute: the ttl counts from the create, expirationTime is sent as the ttl left at that moment.
        expiresInMinutes: Math.round(
          i.ttl !== undefined
            ? 60 * TTL_HOURS[i.ttl as string]!
            : (Date.parse(i.expirationTime as string) - Date.now()) / 60_000,
        ),
      }),
    },
  },
];

/** The catalogue's resource a target names. */
const resourceNamed = (name: string): FieldMappedResource =>
  FIELD_MAPPED_RESOURCES.find((resource) => resource.declaration.name === name)!;

/** A declared input in the form read-back and program compare in: unset is its default, a set is sorted. */
function comparable(resource: FieldMappedResource, key: string, value: unknown): unknown {
  const d = resource.declaration;
  const given = value ?? d.inputs[key]!.default;
  return d.fields.find((f) => f.key === key)?.kind === "stringSet" && Array.isArray(given)
    ? sortedSet(given)
    : given;
}

/** Every declared input the API returns (not write-only, not compared apart), from the live object or the inputs. */
function declaredForm(resource: FieldMappedResource, target: Target, inputs: Props): Props {
  const d = resource.declaration;
  const keys = d.apiInputs.filter(
    (key) => !d.writeOnly.includes(key) && !(target.apart?.keys ?? []).includes(key),
  );
  return Object.fromEntries(keys.map((key) => [key, comparable(resource, key, inputs[key])]));
}

describe.each(targets)("$name provider under random and malformed arguments", (target) => {
  const tally = { rejected: 0, created: 0 };
  const resource = resourceNamed(target.name);
  afterAll(() => {
    process.stdout.write(
      `fuzz ${target.name}: ${tally.rejected} rejected at check, ${tally.created} created\n`,
    );
  });

  test("rejected at check naming exactly the broken fields with zero API calls, or created exactly", async () => {
    const fields = fieldsOf(
      resource.declaration,
      {
        ...common,
        ...(Object.hasOwn(resource.declaration.inputs, "adopt") ? { adopt } : {}),
        ...target.fields(),
      },
      known(),
    );
    await fc.assert(
      fc.asyncProperty((target.cases ?? caseOf)(fields), async ({ inputs, broken, maybe = [] }) => {
        if (inputs.groupUid === FRESH_GROUP) {
          inputs.groupUid = (await client.groups.create(folder, { name: `fresh-${freshCount++}` })).uid;
        }
        h.mark();
        const checked = await resource.provider.check!({}, inputs);
        const named = [...new Set((checked.failures ?? []).map((f) => topLevel(f.property)))].sort();
        // Refused before any API call; a valid one may read (the preview's access review and preflight, once per
        // provider process), never write.
        const atCheck = h.requestsSinceMark();
        expect(atCheck.filter((r) => r.method !== "GET")).toEqual([]);
        if (named.length > 0) expect(atCheck).toEqual([]);
        expect([broken, [...broken, ...maybe].sort()]).toContainEqual(named);
        for (const failure of checked.failures ?? []) expect(failure.reason).toEqual(expect.any(String));
        if (broken.length > 0) {
          tally.rejected++;
          return;
        }

        h.mark();
        const created = await resource.provider.create(checked.inputs);
        const calls = h.requestsSinceMark();
        expect(calls.map((r) => r.method)).toEqual(["POST"]);
        expect(calls[0]!.status).toBe(200);
        const live = await resource.description.get(client, created.id);
        expect(declaredForm(resource, target, resource.description.inputsOf(live))).toEqual(
          declaredForm(resource, target, inputs),
        );
        if (target.apart)
          expect(await target.apart.readBack(created.id)).toEqual(target.apart.expected(inputs));
        tally.created++;
      }),
      { seed: SEED, numRuns: target.runs ?? RUNS, interruptAfterTimeLimit: 20_000 },
    );
  }, 40_000);
});

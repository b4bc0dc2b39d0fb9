/**
 * Fuzzing the dynamic providers' arguments (fast-check, fixed seed, bounded runs), against the in-process
 * emulator.
 *
 * Every field of every resource gets either a valid value or, sometimes, a malformed one (wrong type, null, empty,
 * a pattern it cannot match, a uid that is not a uid, an unknown capability, a regular expression that does not
 * compile). The generator knows which fields it broke. Properties:
 *   - `check` rejects exactly when a field is broken, and its failures name exactly the broken fields (top-level
 *     name; nested paths like `claimMatch.issuer` count for `claimMatch`), with ZERO API calls;
 *   - an accepted input is created with exactly ONE API call (the POST), and the object read back through the SDK
 *     equals the inputs (absent description = "", capabilities as a set).
 */
import type * as pulumi from "@pulumi/pulumi";
import { createHash } from "node:crypto";
import fc from "fast-check";

import type { PlatformClient } from "../../sdk";
import groupProvider = require("../../provider/iam/group.provider");
import identityProvider = require("../../provider/iam/identity.provider");
import roleProvider = require("../../provider/iam/role.provider");
import roleBindingProvider = require("../../provider/iam/role-binding.provider");
import { CAPABILITIES } from "../../provider/iam/capabilities";
import { startHarness, type Harness } from "../provider/harness";
import { anyText, caseOf, notAString, notAUid, topLevel, type Case, type Field } from "./cases";

const SEED = 20261122;
const RUNS = Number(process.env.FUZZ_RUNS ?? 120);

/** Common inputs every resource accepts (left out or well-formed for creates; broken types are rejected). */
const common: Record<string, Field> = {
  profile: {
    valid: fc.constant(""),
    invalid: notAString.filter((v) => typeof v !== "string"),
    optional: true,
  },
  adopt: {
    valid: fc.constant(false),
    invalid: fc.oneof(fc.constant(null), fc.string(), fc.integer()),
    optional: true,
  },
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

/** A valid parent: the organization or a folder in it. */
const parent = (): fc.Arbitrary<string> => fc.constantFrom(org, folder);

interface Target {
  name: string;
  provider: pulumi.dynamic.ResourceProvider;
  cases: () => fc.Arbitrary<Case>;
  /** The live object in the form of the inputs it should equal. */
  readBack: (uid: string) => Promise<Record<string, unknown>>;
  /** The inputs in that same form. */
  expected: (inputs: Record<string, unknown>) => Record<string, unknown>;
}

const parentOf = (uid: string): string | undefined =>
  uid.includes("/") ? uid.slice(0, uid.lastIndexOf("/")) : undefined;
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

const targets: Target[] = [
  {
    name: "Group",
    provider: groupProvider,
    cases: () =>
      caseOf({
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
        ...common,
      }),
    readBack: async (uid) => {
      const g = await client.groups.get(uid);
      return { name: g.name, description: g.description ?? "", parentUid: parentOf(uid) };
    },
    expected: (i) => ({ name: i.name, description: i.description ?? "", parentUid: i.parentUid }),
  },
  {
    name: "Identity",
    provider: identityProvider,
    cases: () =>
      caseOf({
        parentUid: { valid: parent(), invalid: notAUid },
        name: {
          valid: fc.string({ minLength: 1, maxLength: 40 }),
          invalid: fc.oneof(notAString, fc.constant("")),
        },
        description: { valid: anyText, invalid: notAString, optional: true },
        claimMatch: { valid: claimMatchValid, invalid: claimMatchInvalid },
        ...common,
      }),
    readBack: async (uid) => {
      const i = await client.identities.get(uid);
      return {
        name: i.name,
        description: i.description ?? "",
        parentUid: parentOf(uid),
        claimMatch: i.claimMatch,
      };
    },
    expected: (i) => ({
      name: i.name,
      description: i.description ?? "",
      parentUid: i.parentUid,
      claimMatch: i.claimMatch,
    }),
  },
  {
    name: "Role",
    provider: roleProvider,
    cases: () =>
      caseOf({
        parentUid: { valid: parent(), invalid: notAUid },
        name: {
          valid: fc.string({ minLength: 1, maxLength: 40 }),
          invalid: fc.oneof(notAString, fc.constant("")),
        },
        description: { valid: anyText, invalid: notAString, optional: true },
        capabilities: {
          valid: fc.array(fc.constantFrom(...CAPABILITIES), { minLength: 1, maxLength: 6 }),
          invalid: fc.oneof(
            notAString.filter((v) => !Array.isArray(v)),
            fc.constant([]),
            fc.constant(["CAP_DOES_NOT_EXIST"]),
            fc.constant(["CAP_IAM_GROUPS_LIST", 3]),
            fc.constant("CAP_IAM_GROUPS_LIST"),
          ),
        },
        ...common,
      }),
    readBack: async (uid) => {
      const r = await client.roles.get(uid);
      return {
        name: r.name,
        description: r.description ?? "",
        parentUid: parentOf(uid),
        capabilities: sortedSet(r.capabilities ?? []),
      };
    },
    expected: (i) => ({
      name: i.name,
      description: i.description ?? "",
      parentUid: i.parentUid,
      capabilities: sortedSet(i.capabilities),
    }),
  },
  {
    name: "RoleBinding",
    provider: roleBindingProvider,
    cases: () =>
      caseOf({
        groupUid: { valid: parent(), invalid: notAUid },
        identityUid: { valid: fc.constantFrom(...identities), invalid: notAUid },
        roleUid: {
          valid: fc.constantFrom(viewer, customRole),
          invalid: fc.oneof(notAUid, fc.constant("0123456789abcdef0123456789abcdef0123456")),
        },
        ...common,
      }),
    readBack: async (uid) => {
      const b = await client.roleBindings.get(uid);
      return { groupUid: b.group?.uid, identityUid: b.identity?.uid, roleUid: b.role?.uid };
    },
    expected: (i) => ({ groupUid: i.groupUid, identityUid: i.identityUid, roleUid: i.roleUid }),
  },
];

describe.each(targets)("$name provider under random and malformed arguments", (target) => {
  const tally = { rejected: 0, created: 0 };
  afterAll(() => {
    process.stdout.write(
      `fuzz ${target.name}: ${tally.rejected} rejected at check, ${tally.created} created\n`,
    );
  });

  test("rejected at check naming exactly the broken fields with zero API calls, or created exactly", async () => {
    await fc.assert(
      fc.asyncProperty(target.cases(), async ({ inputs, broken }) => {
        h.mark();
        const checked = await target.provider.check!({}, inputs);
        const named = [...new Set((checked.failures ?? []).map((f) => topLevel(f.property)))].sort();
        expect(h.requestsSinceMark()).toEqual([]);
        expect(named).toEqual(broken);
        for (const failure of checked.failures ?? []) expect(failure.reason).toEqual(expect.any(String));
        if (broken.length > 0) {
          tally.rejected++;
          return;
        }

        h.mark();
        const created = await target.provider.create!(checked.inputs);
        const calls = h.requestsSinceMark();
        expect(calls.map((r) => r.method)).toEqual(["POST"]);
        expect(calls[0]!.status).toBe(200);
        expect(await target.readBack(created.id)).toEqual(target.expected(inputs));
        tally.created++;
      }),
      { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: 20_000 },
    );
  }, 40_000);
});

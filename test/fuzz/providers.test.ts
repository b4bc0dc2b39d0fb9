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
import identityProviderProvider = require("../../provider/iam/identity-provider.provider");
import accountAssociationProvider = require("../../provider/iam/account-association.provider");
import groupInviteProvider = require("../../provider/iam/group-invite.provider");
import { CAPABILITIES } from "../../sdk/schemas/capabilities";
import { BUILTIN_ROLES } from "../../emulator";
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

/** Stands for a group made just before the case runs (an account association is one per group). */
const FRESH_GROUP = "fresh-group";
let freshCount = 0;

interface Target {
  name: string;
  /** Runs; more for resources with many fields, where most cases break at least one. */
  runs?: number;
  provider: pulumi.dynamic.ResourceProvider;
  cases: () => fc.Arbitrary<Case>;
  /** The live object in the form of the inputs it should equal. */
  readBack: (uid: string) => Promise<Record<string, unknown>>;
  /** The inputs in that same form. */
  expected: (inputs: Record<string, unknown>) => Record<string, unknown>;
}

const OWNER_CAPABILITIES = new Set(BUILTIN_ROLES.find((r) => r.name === "owner")!.capabilities);

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
      }).map((c) =>
        // "Exactly one of claimMatch, staticKeys, awsIdentity" is a whole-object rule, which zod skips while a
        // field has a type error: an absent claimMatch is then named on a later round, not necessarily this one.
        !("claimMatch" in c.inputs) && c.broken.length > 1
          ? { inputs: c.inputs, broken: c.broken.filter((b) => b !== "claimMatch"), maybe: ["claimMatch"] }
          : c,
      ),
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
  {
    name: "IdentityProvider",
    runs: 4 * RUNS,
    provider: identityProviderProvider,
    cases: () =>
      caseOf({
        parentUid: { valid: fc.constant(org), invalid: fc.oneof(notAUid, fc.constant(folder)) },
        name: {
          valid: fc.string({ minLength: 1, maxLength: 40 }),
          invalid: fc.oneof(notAString, fc.constant("")),
        },
        description: { valid: anyText, invalid: notAString, optional: true },
        defaultRole: { valid: fc.constantFrom(viewer, customRole), invalid: notAUid },
        issuer: {
          valid: fc.webUrl().map((u) => u.replace(/^https?:/, "https:")),
          invalid: fc.oneof(
            notAString,
            fc.constantFrom("", "http://sso.example.com", "sso.example.com", "https://"),
          ),
        },
        clientId: {
          valid: fc.string({ minLength: 1, maxLength: 30 }),
          invalid: fc.oneof(notAString, fc.constant("")),
        },
        clientSecret: {
          valid: fc.string({ minLength: 1, maxLength: 30 }),
          invalid: fc.oneof(notAString, fc.constant("")),
        },
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
        ...common,
      }),
    readBack: async (uid) => {
      const p = await client.identityProviders.get(uid);
      return {
        parentUid: parentOf(uid) ?? uid,
        name: p.name,
        description: p.description ?? "",
        defaultRole: p.defaultRole,
        issuer: p.oidc?.issuer,
        clientId: p.oidc?.clientId,
        additionalScopes: sortedSet(p.oidc?.additionalScopes ?? []),
        groupsClaim: p.oidc?.groupsClaim ?? "",
        pkceEnabled: p.oidc?.pkceEnabled ?? false,
      };
    },
    expected: (i) => ({
      parentUid: i.parentUid,
      name: i.name,
      description: i.description ?? "",
      defaultRole: i.defaultRole,
      issuer: i.issuer,
      clientId: i.clientId,
      additionalScopes: sortedSet(i.additionalScopes ?? []),
      groupsClaim: i.groupsClaim ?? "",
      pkceEnabled: i.pkceEnabled ?? false,
    }),
  },
  {
    name: "AccountAssociation",
    provider: accountAssociationProvider,
    cases: () =>
      caseOf({
        groupUid: { valid: fc.constant(FRESH_GROUP), invalid: notAUid },
        name: {
          valid: fc.string({ minLength: 1, maxLength: 40 }),
          invalid: fc.oneof(notAString, fc.constant("")),
        },
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
        ...common,
      }),
    readBack: async (uid) => {
      const a = await client.accountAssociations.get(uid);
      return {
        name: a.name,
        description: a.description ?? "",
        amazon: a.amazon,
        google: a.google,
      };
    },
    expected: (i) => ({
      name: i.name,
      description: i.description ?? "",
      amazon: i.amazon,
      google: i.google,
    }),
  },
  {
    name: "GroupInvite",
    provider: groupInviteProvider,
    cases: () =>
      fc
        .tuple(
          caseOf({
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
            profile: common.profile!,
            adopt: { ...common.adopt!, invalid: fc.oneof(fc.constant(true), fc.string(), fc.integer()) },
          }),
          lifetime,
        )
        .map(([fields, life]) => {
          const inputs = { ...fields.inputs, ...life.inputs };
          // The ttl-or-expirationTime rule is checked on the whole object, which zod skips when a field has a
          // type error: then check names the other fields alone, and the rule comes on the next round.
          const crossField = "ttl" in inputs === "expirationTime" in inputs;
          if (crossField && fields.broken.length > 0)
            return { inputs, broken: fields.broken, maybe: life.broken };
          return { inputs, broken: [...fields.broken, ...life.broken].sort() };
        }),
    readBack: async (uid) => {
      const invite = await client.groupInvites.get(uid);
      return {
        groupUid: parentOf(uid),
        roleUid: invite.roleUid ?? invite.role?.uid,
        email: invite.email ?? "",
        singleUse: invite.singleUse ?? false,
        expiresInMinutes: Math.round((Date.parse(invite.expirationTime ?? "") - Date.now()) / 60_000),
      };
    },
    expected: (i) => ({
      groupUid: i.groupUid,
      roleUid: i.roleUid,
      email: i.email ?? "",
      singleUse: i.singleUse ?? false,
      // To the minute: the ttl counts from the create, expirationTime is sent as the ttl left at that moment.
      expiresInMinutes: Math.round(
        i.ttl !== undefined
          ? 60 * TTL_HOURS[i.ttl as string]!
          : (Date.parse(i.expirationTime as string) - Date.now()) / 60_000,
      ),
    }),
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
      fc.asyncProperty(target.cases(), async ({ inputs, broken, maybe = [] }) => {
        if (inputs.groupUid === FRESH_GROUP) {
          inputs.groupUid = (await client.groups.create(folder, { name: `fresh-${freshCount++}` })).uid;
        }
        h.mark();
        const checked = await target.provider.check!({}, inputs);
        const named = [...new Set((checked.failures ?? []).map((f) => topLevel(f.property)))].sort();
        expect(h.requestsSinceMark()).toEqual([]);
        expect([broken, [...broken, ...maybe].sort()]).toContainEqual(named);
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
      { seed: SEED, numRuns: target.runs ?? RUNS, interruptAfterTimeLimit: 20_000 },
    );
  }, 40_000);
});

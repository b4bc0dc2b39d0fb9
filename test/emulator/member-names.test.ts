/**
 * A member name is data, never a key into one of the emulator's own objects. Names JavaScript gives a
 * meaning to (`__proto__`, `constructor`, `toString`...) are unknown members where the message has no such member
 * (code 3 naming the path, as a protobuf / grpc-gateway server answers an unknown field), and map keys like any
 * other where the member is a map with free keys (stored, returned, persisted). Bodies are sent as raw JSON text:
 * a `__proto__` member in an object literal would set its prototype, not send the member.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KINDS } from "../../emulator/model";
import { accountAssociations } from "../../emulator/routes/account-associations";
import { createHandler, updateHandler, type CollectionSpec } from "../../emulator/routes/crud";
import { outputOnlyOf, wireMessageOf } from "../../emulator/routes/crud-bodies";
import { groupInvites } from "../../emulator/routes/group-invites";
import { groups } from "../../emulator/routes/groups";
import { identities } from "../../emulator/routes/identities";
import { identityProviders } from "../../emulator/routes/identity-providers";
import { roleBindings } from "../../emulator/routes/role-bindings";
import { roles } from "../../emulator/routes/roles";
import fc from "fast-check";
import { details, start, type Api, type WireResponse } from "./helpers";
import { resolve, spec, type Schema } from "./openapi";

/** Names with a meaning in JavaScript, none of them a member of any message of the API. */
const HOSTILE = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "__defineGetter__",
  "isPrototypeOf",
];

let api: Api;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "member-names-"));
  api = await start({ dataFile: join(dir, "state.json") });
});
afterAll(async () => {
  await api.emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `body` as JSON text with `extra` (JSON text of a member) spliced in at the top level. */
const withMember = (body: Record<string, unknown>, name: string, value = '{"a":1}'): string => {
  const rest = JSON.stringify(body).slice(1);
  return `{${JSON.stringify(name)}:${value}${rest === "}" ? "" : ","}${rest}`;
};

const postRaw = (path: string, raw: string): Promise<WireResponse> => api.call("POST", path, { raw });
const patchRaw = (path: string, raw: string, query = ""): Promise<WireResponse> =>
  api.call("PATCH", `${path}${query}`, { raw });

function expectRefused(answer: WireResponse, field: string): void {
  expect([answer.status, answer.body?.code]).toEqual([400, 3]);
  expect(details(answer.body).fieldViolations.map((v) => v.field)).toContain(field);
}

interface Case {
  label: string;
  spec: CollectionSpec;
  createPath: () => string;
  body: () => Record<string, unknown>;
  /** The API has no PATCH of it (group invites). */
  noUpdate?: true;
}

let folder = "";
let viewer = "";
let identityUid = "";
beforeAll(async () => {
  folder = (await api.post(`/iam/v2beta1/groups/${api.emulator.orgUid}`, { name: "names" })).body.uid;
  viewer = (await api.get("/iam/v2beta1/roles?name=viewer")).body.roles[0].uid;
  identityUid = (
    await api.post(`/iam/v2beta1/identities/${folder}`, {
      name: "names-bot",
      claimMatch: { issuer: "https://issuer.example", subject: "bot" },
    })
  ).body.uid;
});

const CASES: Case[] = [
  {
    label: "group",
    spec: groups,
    createPath: () => `/iam/v2beta1/groups/${folder}`,
    body: () => ({ name: "px" }),
  },
  {
    label: "identity",
    spec: identities,
    createPath: () => `/iam/v2beta1/identities/${folder}`,
    body: () => ({ name: "id", claimMatch: { issuer: "https://issuer.example", subject: "s" } }),
  },
  {
    label: "role",
    spec: roles,
    createPath: () => `/iam/v2beta1/roles/${folder}`,
    body: () => ({ name: "role", capabilities: ["CAP_IAM_GROUPS_LIST"] }),
  },
  {
    label: "role binding",
    spec: roleBindings,
    createPath: () => `/iam/v2beta1/roleBindings/${folder}`,
    body: () => ({ identityUid, roleUid: viewer }),
  },
  {
    label: "identity provider",
    spec: identityProviders,
    createPath: () => `/iam/v2beta1/identityProviders/${api.emulator.orgUid}`,
    body: () => ({
      name: "sso",
      defaultRole: viewer,
      oidc: { issuer: "https://sso.example.com", clientId: "c", clientSecret: "s" },
    }),
  },
  {
    label: "group invite",
    spec: groupInvites,
    createPath: () => `/iam/v2beta1/groupInvites/${folder}`,
    body: () => ({ roleUid: viewer, ttl: "3600s" }),
    noUpdate: true,
  },
  {
    label: "account association",
    spec: accountAssociations,
    createPath: () => `/iam/v2beta1/accountAssociations/${folder}`,
    body: () => ({ name: "assoc", amazon: { account: "123456789012" } }),
  },
];

describe.each(CASES)("$label", ({ createPath, body, noUpdate }) => {
  test("refuses each JavaScript-special member name on create, naming it, and stores nothing", async () => {
    const before = api.emulator.snapshot();
    for (const name of HOSTILE) {
      const answer = await postRaw(createPath(), withMember(body(), name));
      expectRefused(answer, name);
    }
    expect(api.emulator.snapshot()).toEqual(before);
  });

  if (noUpdate !== true)
    test("refuses each on update too, with or without an update mask", async () => {
      const created = await postRaw(createPath(), JSON.stringify(body()));
      expect(created.status).toBe(200);
      const path = `${/^\/[^/]+\/v2beta1\/[^/]+/.exec(createPath())![0]}/${created.body.uid}`;
      const before = api.emulator.snapshot();
      for (const name of HOSTILE) {
        expectRefused(await patchRaw(path, withMember({}, name)), name);
        expectRefused(await patchRaw(path, withMember({}, name), `?updateMask=${name}`), name);
        expectRefused(await patchRaw(path, "{}", `?updateMask=${encodeURIComponent(name)}`), "updateMask");
      }
      expect(api.emulator.snapshot()).toEqual(before);
      await api.del(path);
    });
});

/** The OpenAPI message of a kind, read from the document itself: `platform.<package>.v2beta1.<Name>`. */
function messageSchema(kind: string): Schema {
  const name = kind
    .replace(/ies$/, "y")
    .replace(/s$/, "")
    .replace(/^./, (c) => c.toUpperCase());
  const schemas = spec.components.schemas as Record<string, Schema>;
  const component = Object.keys(schemas).find((c) =>
    new RegExp(`^platform\\.[a-z]+\\.v2beta1\\.${name}$`).test(c),
  );
  if (component === undefined) throw new Error(`no OpenAPI message for ${kind}`);
  return resolve(schemas[component]!);
}

const propertiesOf = (schema: Schema) => (resolve(schema).properties ?? {}) as Record<string, Schema>;

/** The members the OpenAPI marks readOnly on a kind's message (the test's own reading of the document). */
function readOnlyMembers(kind: string): string[] {
  return Object.entries(propertiesOf(messageSchema(kind)))
    .filter(([, property]) => property.readOnly === true || resolve(property).readOnly === true)
    .map(([member]) => member);
}

/**
 * A value of the schema's type that the service never produces: every string is `sent-...` (a date-time is in the
 * 1990s), every map key too, every member of a message is present. So a value that was applied shows in a read.
 */
function markerOf(schema: Schema): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const marked = fc.stringMatching(/^[a-z0-9]{0,8}$/).map((text) => `sent-${text}`);
  switch (s.type) {
    case "string":
      return s.format === "date-time"
        ? fc
            .date({
              min: new Date("1990-01-01T00:00:00Z"),
              max: new Date("1999-12-31T00:00:00Z"),
              noInvalidDate: true,
            })
            .map((d) => d.toISOString())
        : marked;
    case "integer":
    case "number":
      return fc.integer({ min: 0, max: 1000 });
    case "boolean":
      return fc.boolean();
    case "array":
      return fc.array(markerOf((s.items ?? {}) as Schema), { minLength: 1, maxLength: 2 });
    case "object":
    default: {
      if (s.properties !== undefined)
        return fc.record(
          Object.fromEntries(Object.entries(propertiesOf(s)).map(([k, p]) => [k, markerOf(p)])),
        );
      if (typeof s.additionalProperties === "object")
        return fc.dictionary(marked, markerOf(s.additionalProperties as Schema), { minKeys: 1, maxKeys: 2 });
      return marked;
    }
  }
}

/**
 * Output-only members (AIP-203), one way on create and update for every member the OpenAPI marks readOnly, of every
 * kind: accepted whatever their value, in the body and in an update mask (at any depth), and never applied (the
 * stored value stays the service's, so a read shows none of what was sent); still read by the service's parser, so
 * a value of the wrong JSON type is code 3 naming it. The members come from the OpenAPI document, not from the
 * emulator's list.
 */
describe("output-only members, on create and update", () => {
  test("every kind has its OpenAPI message, and every collection that creates is covered here", () => {
    for (const kind of KINDS) expect(() => wireMessageOf(kind)).not.toThrow();
    expect(CASES.map((c) => c.spec.kind).sort()).toEqual(
      [groups, identities, roles, roleBindings, identityProviders, groupInvites, accountAssociations]
        .filter((spec) => spec.create !== undefined)
        .map((spec) => spec.kind)
        .sort(),
    );
  });

  test("a collection whose kind has no OpenAPI message fails when its handlers are built, not on a request", () => {
    const misnamed = { ...groups, kind: "groupz" } as unknown as CollectionSpec;
    expect(() => createHandler(misnamed)).toThrow(/no OpenAPI message Groupz/);
    expect(() => updateHandler(misnamed)).toThrow(/no OpenAPI message Groupz/);
  });

  test("the emulator's output-only members of each kind are the OpenAPI's readOnly ones", () => {
    for (const kind of KINDS)
      expect([kind, [...outputOnlyOf(kind)].sort()]).toEqual([kind, readOnlyMembers(kind).sort()]);
  });

  test("no writable member of a created or updated kind holds a readOnly member (only top-level ones are ignored)", () => {
    const nested = (schema: Schema, path: string, seen: Set<Schema>): string[] => {
      const s = resolve(schema);
      if (seen.has(s)) return [];
      seen.add(s);
      const inner = [s.items, s.additionalProperties].filter((x): x is Schema => typeof x === "object");
      return [
        ...Object.entries(propertiesOf(s)).flatMap(([k, p]) =>
          p.readOnly === true || resolve(p).readOnly === true
            ? [`${path}.${k}`]
            : nested(p, `${path}.${k}`, seen),
        ),
        ...inner.flatMap((x) => nested(x, `${path}[]`, seen)),
      ];
    };
    for (const { spec: collection } of CASES) {
      const readOnly = readOnlyMembers(collection.kind);
      const writable = Object.entries(propertiesOf(messageSchema(collection.kind))).filter(
        ([member]) => !readOnly.includes(member),
      );
      expect([collection.kind, writable.flatMap(([m, p]) => nested(p, m, new Set()))]).toEqual([
        collection.kind,
        [],
      ]);
    }
  });

  test.each(CASES)(
    "$label: each is ignored at any value of its type, on create, on update and in a mask",
    async (c) => {
      const members = readOnlyMembers(c.spec.kind);
      const properties = propertiesOf(messageSchema(c.spec.kind));
      const sent = fc
        .record(Object.fromEntries(members.map((m) => [m, markerOf(properties[m]!)])), { requiredKeys: [] })
        .filter((r) => Object.keys(r).length > 0);
      const hasDescription = (c.spec.update?.fields ?? []).includes("description");
      let run = 0;
      await fc.assert(
        fc.asyncProperty(sent, async (extra) => {
          const untouched = (answer: unknown) => {
            for (const [member, value] of Object.entries(extra))
              expect([member, answer as Record<string, unknown>]).not.toEqual([
                member,
                expect.objectContaining({ [member]: value }),
              ]);
            expect(JSON.stringify(answer)).not.toContain("sent-");
          };
          const created = await postRaw(c.createPath(), JSON.stringify({ ...c.body(), ...extra }));
          expect([created.status, created.text]).toEqual([200, created.text]);
          untouched(created.body);
          const path = `${/^\/[^/]+\/v2beta1\/[^/]+/.exec(c.createPath())![0]}/${created.body.uid}`;
          if (c.noUpdate !== true) {
            const before = (await api.get(path)).body;
            // Paths into an output-only message are output-only too (`scim.enabled`, `identity.name`).
            const paths = Object.entries(extra).map(([m, v]) =>
              typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length > 0
                ? `${m}.${Object.keys(v)[0]}`
                : m,
            );
            for (const query of [
              "",
              `?updateMask=${Object.keys(extra).join(",")}`,
              `?updateMask=${paths.join(",")}`,
            ]) {
              const patched = await patchRaw(path, JSON.stringify(extra), query);
              expect([query, patched.status, patched.text]).toEqual([query, 200, patched.text]);
              // Nothing else was sent: a true no-op, updateTime included.
              expect((await api.get(path)).body).toEqual(before);
            }
            if (hasDescription) {
              const description = `run ${++run}`;
              const patched = await patchRaw(
                path,
                JSON.stringify({ ...extra, description }),
                `?updateMask=description,${paths.join(",")}`,
              );
              expect([patched.status, patched.body.description]).toEqual([200, description]);
              untouched(patched.body);
              const { updateTime: _u, ...rest } = (await api.get(path)).body;
              const { updateTime: _b, ...was } = before;
              expect(rest).toEqual({ ...was, description });
            }
          }
          expect(api.emulator.snapshot()).not.toContain("sent-");
          expect((await api.del(path)).status).toBe(200);
        }),
        { seed: 203, numRuns: 12 },
      );
    },
  );

  test.each(CASES)(
    "$label: one of the wrong JSON type is refused naming it, on create and update",
    async (c) => {
      const message = wireMessageOf(c.spec.kind);
      // The times the message does not have (a role binding's updateTime) are no output-only members: unknown ones.
      for (const member of ["uid", "createTime", "updateTime"].filter(
        (m) => !Object.hasOwn(message.shape, m),
      ))
        expectRefused(await postRaw(c.createPath(), JSON.stringify({ ...c.body(), [member]: "x" })), member);
      const created = await postRaw(c.createPath(), JSON.stringify(c.body()));
      expect(created.status).toBe(200);
      const path = `${/^\/[^/]+\/v2beta1\/[^/]+/.exec(c.createPath())![0]}/${created.body.uid}`;
      const before = api.emulator.snapshot();
      for (const member of [...readOnlyMembers(c.spec.kind), ...(c.spec.create!.ignored ?? [])]) {
        const type = message.shape[member];
        expect([member, type !== undefined]).toEqual([member, true]);
        const wrong = [{ a: 1 }, [1], 5, "x", true].find((v) => !type!.safeParse(v).success);
        expectRefused(
          await postRaw(c.createPath(), JSON.stringify({ ...c.body(), [member]: wrong })),
          member,
        );
        if (c.noUpdate !== true) {
          expectRefused(await patchRaw(path, JSON.stringify({ [member]: wrong })), member);
          expectRefused(
            await patchRaw(path, JSON.stringify({ [member]: wrong }), `?updateMask=${member}`),
            member,
          );
        }
      }
      expect(api.emulator.snapshot()).toEqual(before);
      await api.del(path);
    },
  );

  test.each(CASES)("$label: an unknown member's message names the kind with its article", async (c) => {
    const article = /^(identity|account|advisory)/.test(c.label) ? "an" : "a";
    const answer = await postRaw(c.createPath(), JSON.stringify({ ...c.body(), bogus: 1 }));
    expectRefused(answer, "bogus");
    expect(answer.body.message).toBe(`Invalid argument: bogus: not a field of ${article} ${c.label}`);
    expect(details(answer.body).fieldViolations).toEqual([
      { field: "bogus", description: `bogus is not a field of ${article} ${c.label}` },
    ]);
  });
});

test("a v1 group update refuses each as a member of a v1 group", async () => {
  const before = api.emulator.snapshot();
  for (const method of ["PUT", "PATCH"])
    for (const name of HOSTILE)
      expectRefused(
        await api.call(method, `/iam/v1/groups/${folder}`, { raw: withMember({ name: "n" }, name) }),
        name,
      );
  expect(api.emulator.snapshot()).toEqual(before);
});

/** The JSON type of a value, as a protobuf JSON parser tells them apart. */
const jsonType = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "array" : typeof value;

/**
 * v1 output-only members, read from what a v1 get answers (every member but those a v1 update takes): echoed as read,
 * each is accepted; of another JSON type, each is code 3 naming it and changes nothing, as on v2.
 */
test("a v1 group update ignores each v1 output-only member, and refuses one of the wrong JSON type naming it", async () => {
  const path = `/iam/v1/groups/${folder}`;
  const read = (await api.get(path)).body as Record<string, unknown>;
  const outputOnly = Object.keys(read).filter((m) => m !== "name" && m !== "description");
  expect(outputOnly).toEqual(expect.arrayContaining(["id", "createdAt", "updatedAt", "verified"]));
  for (const method of ["PUT", "PATCH"]) {
    const echoed = await api.call(method, path, { raw: JSON.stringify(read) });
    expect([method, echoed.status, echoed.body?.name]).toEqual([method, 200, read.name]);
  }
  const before = api.emulator.snapshot();
  for (const method of ["PUT", "PATCH"])
    for (const member of outputOnly) {
      const wrong = [{ a: 1 }, [1], 5, "x", true].find((v) => jsonType(v) !== jsonType(read[member]));
      const body = { name: read.name, description: read.description, [member]: wrong };
      expectRefused(await api.call(method, path, { raw: JSON.stringify(body) }), member);
    }
  expect(api.emulator.snapshot()).toEqual(before);
});

test("nested, a JavaScript-special name is an unknown member of a message too", async () => {
  for (const name of HOSTILE) {
    const raw = `{"name":"id","claimMatch":{"issuer":"https://i.example","subject":"s",${JSON.stringify(name)}:"x"}}`;
    expectRefused(await postRaw(`/iam/v2beta1/identities/${folder}`, raw), `claimMatch.${name}`);
  }
});

test("the same names are free keys of a map: stored as given, returned, and persisted across a restart", async () => {
  const keys = HOSTILE.map((name, i) => [name, `v${i}`] as const);
  const claims = `{${keys.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`;
  const identity = await postRaw(
    `/iam/v2beta1/identities/${folder}`,
    `{"name":"mapped","claimMatch":{"issuer":"https://i.example","subject":"s","claims":${claims}}}`,
  );
  expect(identity.status).toBe(200);
  const expected = Object.fromEntries(keys);
  const claimsOf = (answer: WireResponse) => answer.body?.claimMatch?.claims;
  expect(claimsOf(identity)).toEqual(expected);
  expect(Object.keys(claimsOf(identity)).sort()).toEqual(HOSTILE.slice().sort());

  const group = (await api.post(`/iam/v2beta1/groups/${api.emulator.orgUid}`, { name: "gh-names" })).body.uid;
  const installations = `{${HOSTILE.map((k) => `${JSON.stringify(k)}:{"installations":[{"installationId":"7"}]}`).join(",")}}`;
  const association = await postRaw(
    `/iam/v2beta1/accountAssociations/${group}`,
    `{"name":"gh","github":{"appInstallations":${installations}}}`,
  );
  expect(association.status).toBe(200);
  expect(Object.keys(association.body.github.appInstallations).sort()).toEqual(HOSTILE.slice().sort());
  expect(association.body.github.appInstallations.__proto__).toEqual({
    installations: [{ installationId: "7" }],
  });

  // A PATCH of the map keeps the keys too.
  const patched = await patchRaw(
    `/iam/v2beta1/identities/${identity.body.uid}`,
    `{"claimMatch":{"claims":{"__proto__":"patched","constructor":"c"}}}`,
  );
  expect(patched.status).toBe(200);
  expect(claimsOf(patched)).toEqual(JSON.parse(`{"__proto__":"patched","constructor":"c"}`));
  expect(Object.keys(claimsOf(patched)).sort()).toEqual(["__proto__", "constructor"]);

  // Read back after a restart on the same data file (the journal and the snapshot).
  const dataFile = join(dir, "state.json");
  const token = api.emulator.token;
  await api.emulator.close();
  api = await start({ dataFile });
  const read = await api.call("GET", `/iam/v2beta1/identities/${identity.body.uid}`, { token });
  expect(Object.keys(claimsOf(read)).sort()).toEqual(["__proto__", "constructor"]);
  expect(claimsOf(read).__proto__).toBe("patched");
  const assoc = await api.call("GET", `/iam/v2beta1/accountAssociations/${group}`, { token });
  expect(Object.keys(assoc.body.github.appInstallations).sort()).toEqual(HOSTILE.slice().sort());
});

describe("query parameters", () => {
  test("a JavaScript-special parameter name is an unknown parameter, on every verb", async () => {
    for (const name of HOSTILE) {
      const q = `?${encodeURIComponent(name)}=1`;
      for (const path of [
        `/iam/v2beta1/groups${q}`,
        `/iam/v2beta1/groups/${folder}${q}`,
        `/iam/v1/groups${q}`,
        `/registry/v2beta1/tags${q}`,
      ]) {
        const answer = await api.get(path);
        expect([path, answer.status]).toEqual([path, 400]);
        expect(details(answer.body).fieldViolations.map((v) => v.field)).toEqual([name]);
      }
    }
  });

  test("an empty integer, or a value given twice for a parameter that is not repeated, is refused naming it", async () => {
    const cases: [string, string][] = [
      ["/registry/v2beta1/tags?skip=", "skip"],
      ["/iam/v2beta1/roleBindings?pageSize=", "pageSize"],
      ["/iam/v2beta1/roleBindings?page_size=", "page_size"],
      ["/iam/v2beta1/roleBindings?pageSize=&pageSize=", "pageSize"],
      ["/iam/v2beta1/groups?pageSize=5&pageSize=6", "pageSize"],
      ["/iam/v2beta1/groups?name=a&name=b", "name"],
      ["/iam/v2beta1/groups?uidp.in_root=true&uidp.in_root=false", "uidp.in_root"],
      ["/iam/v2beta1/groups?skip=1&skip=1", "skip"],
      [`/iam/v1/groups?name=a&name=b`, "name"],
      [`/iam/v1/groups?uidp.children_of=${folder}&uidp.children_of=${folder}`, "uidp.children_of"],
    ];
    for (const [path, field] of cases) {
      const answer = await api.get(path);
      expect([path, answer.status, answer.body?.code]).toEqual([path, 400, 3]);
      expect(details(answer.body).fieldViolations.map((v) => v.field)).toEqual([field]);
    }
  });

  test("a repeated parameter the OpenAPI repeats stays accepted, in either spelling", async () => {
    const org = api.emulator.orgUid;
    for (const path of [
      `/iam/v2beta1/groups?uidp.ids=${org}&uidp.ids=${folder}`,
      `/iam/v2beta1/groups?pageSize=5&page_size=5`,
      `/iam/v1/groups?id=${org}&id=${folder}`,
    ]) {
      const answer = await api.get(path);
      expect([path, answer.status]).toEqual([path, 200]);
    }
  });
});

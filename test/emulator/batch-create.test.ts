/**
 * POST /iam/v2beta1/roleBindings:batchCreate (OpenAPI BatchCreateRoleBindings, AIP-233), one test per rule: up to
 * 25 creates under one parent, in order, all or none; a sub-request's parent is empty or the batch's; the batch's
 * roleUid is inherited and a different one refused (code 3); each sub-request meets the rules of one create (the
 * caller's capability on the parent, visible references, no escalation) and a refusal names it
 * (`requests[3].roleBinding.identityUid`); an injected fault leaves all of it or none of it.
 */
import fc from "fast-check";
import { BUILTIN_ROLES } from "../../emulator";
import { details, start, type Api } from "./helpers";

const BATCH = "/iam/v2beta1/roleBindings:batchCreate";

let api: Api;
let folder: string;
let identities: string[];
const roleUid = (name: string): string => BUILTIN_ROLES.find((r) => r.name === name)!.uid;
const viewer = roleUid("viewer");
const editor = roleUid("editor");

beforeAll(async () => {
  api = await start();
  folder = (await api.post(`/iam/v2beta1/groups/${api.emulator.orgUid}`, { name: "batch" })).body.uid;
  identities = [];
  for (let i = 0; i < 30; i++)
    identities.push(
      (
        await api.post(`/iam/v2beta1/identities/${folder}`, {
          name: `id-${i}`,
          claimMatch: { issuer: "https://i.example.com", subject: `s${i}` },
        })
      ).body.uid,
    );
});
afterAll(() => api.emulator.close());

/** The bindings stored on `group`, as "identity role" pairs. */
async function pairsOn(group: string): Promise<string[]> {
  const listed = await api.get(`/iam/v2beta1/roleBindings?group=${group}&pageSize=200`);
  return (listed.body.roleBindings as { identity: { uid: string }; role: { uid: string } }[])
    .map((b) => `${b.identity.uid} ${b.role.uid}`)
    .sort();
}

async function freshGroup(name = "g"): Promise<string> {
  return (await api.post(`/iam/v2beta1/groups/${folder}`, { name })).body.uid;
}

const sub = (identityUid: string, roleUid?: string) => ({
  roleBinding: { identityUid, ...(roleUid !== undefined ? { roleUid } : {}) },
});

test("creates every binding under the parent, answered in the order of the requests, each readable", async () => {
  const group = await freshGroup();
  const requests = identities.slice(0, 25).map((id, i) => sub(id, i % 2 === 0 ? viewer : editor));
  const answer = await api.post(BATCH, { parent: group, requests });
  expect(answer.status).toBe(200);
  const made = answer.body.roleBindings as {
    uid: string;
    identity: { uid: string };
    role: { uid: string };
  }[];
  expect(made.map((b) => [b.identity.uid, b.role.uid])).toEqual(
    requests.map((r) => [r.roleBinding.identityUid, r.roleBinding.roleUid]),
  );
  for (const b of made) {
    expect(b.uid.startsWith(`${group}/`)).toBe(true);
    expect((await api.get(`/iam/v2beta1/roleBindings/${b.uid}`)).body.identity.uid).toBe(b.identity.uid);
  }
  expect(await pairsOn(group)).toHaveLength(25);
});

test("more than 25 requests, or none, are refused naming requests, and nothing is created", async () => {
  const group = await freshGroup();
  for (const requests of [identities.slice(0, 26).map((id) => sub(id, viewer)), []]) {
    const answer = await api.post(BATCH, { parent: group, requests });
    expect(answer.status).toBe(400);
    expect(details(answer.body).fieldViolations.map((v) => v.field)).toEqual(["requests"]);
  }
  expect(await pairsOn(group)).toEqual([]);
});

test("the batch's roleUid is inherited by sub-requests without one; the same one is accepted", async () => {
  const group = await freshGroup();
  const answer = await api.post(BATCH, {
    parent: group,
    roleUid: editor,
    requests: [sub(identities[0]!), sub(identities[1]!, editor), { parent: group, ...sub(identities[2]!) }],
  });
  expect(answer.status).toBe(200);
  expect(answer.body.roleBindings.map((b: { role: { uid: string } }) => b.role.uid)).toEqual([
    editor,
    editor,
    editor,
  ]);
});

test("AIP-233 conflicts are code 3 naming the sub-request: another roleUid, another parent; nothing is created", async () => {
  const group = await freshGroup();
  const other = await freshGroup("other");
  const cases: [Record<string, unknown>, string[]][] = [
    [
      { parent: group, roleUid: viewer, requests: [sub(identities[0]!), sub(identities[1]!, editor)] },
      ["requests[1].roleBinding.roleUid"],
    ],
    [
      {
        parent: group,
        requests: [sub(identities[0]!, viewer), { parent: other, ...sub(identities[1]!, viewer) }],
      },
      ["requests[1].parent"],
    ],
    [
      { parent: group, requests: [sub(identities[0]!, viewer), sub(identities[1]!)] },
      ["requests[1].roleBinding.roleUid"],
    ],
    [
      {
        parent: group,
        roleUid: viewer,
        requests: [sub(identities[0]!), sub(identities[1]!), sub(identities[2]!), sub("nope")],
      },
      ["requests[3].roleBinding.identityUid"],
    ],
    [{ parent: group, roleUid: viewer, requests: [sub(identities[0]!), {}] }, ["requests[1].roleBinding"]],
    [
      { parent: group, roleUid: viewer, requests: [sub(identities[0]!), { roleBinding: { bogus: 1 } }] },
      ["requests[1].roleBinding.bogus"],
    ],
    [{ parent: group, roleUid: 7, requests: [sub(identities[0]!)] }, ["roleUid"]],
    [{ requests: [sub(identities[0]!, viewer)] }, ["parent"]],
  ];
  for (const [body, fields] of cases) {
    const answer = await api.post(BATCH, body);
    expect([JSON.stringify(body), answer.status, answer.body.code]).toEqual([JSON.stringify(body), 400, 3]);
    expect(details(answer.body).fieldViolations.map((v) => v.field)).toEqual(fields);
  }
  expect(await pairsOn(group)).toEqual([]);
  expect(await pairsOn(other)).toEqual([]);
});

test("a reference that breaks one create's rules refuses the whole batch, naming its sub-request", async () => {
  const group = await freshGroup();
  const elsewhere = (await api.post(`/iam/v2beta1/groups/${api.emulator.orgUid}`, { name: "far" })).body.uid;
  const farRole = (
    await api.post(`/iam/v2beta1/roles/${elsewhere}`, {
      name: "far",
      capabilities: ["CAP_IAM_GROUPS_LIST"],
    })
  ).body.uid;
  const missingIdentity = `${folder}/0123456789abcdef`;
  for (const [requests, field] of [
    [
      [sub(identities[0]!, viewer), sub(identities[1]!, viewer), sub(missingIdentity, viewer)],
      "requests[2].roleBinding.identityUid",
    ],
    [[sub(identities[0]!, viewer), sub(identities[1]!, farRole)], "requests[1].roleBinding.roleUid"],
  ] as const) {
    const answer = await api.post(BATCH, { parent: group, requests });
    expect(answer.status).toBe(400);
    expect(details(answer.body).fieldViolations.map((v) => v.field)).toEqual([field]);
  }
  // The batch's own roleUid is named as such when it is the bad one.
  const answer = await api.post(BATCH, { parent: group, roleUid: farRole, requests: [sub(identities[0]!)] });
  expect(details(answer.body).fieldViolations.map((v) => v.field)).toEqual(["roleUid"]);
  expect(await pairsOn(group)).toEqual([]);
});

test("the same authorization as one create: no capability on the parent is 403/404, no escalation is 7, nothing created", async () => {
  const group = await freshGroup();
  const caller = api.emulator.createUser("limited");
  // Viewer on the group: may see it, may not bind there.
  await api.post(`/iam/v2beta1/roleBindings/${group}`, { identityUid: caller.uid, roleUid: viewer });
  const refused = await api.post(
    BATCH,
    { parent: group, requests: [sub(identities[0]!, viewer)] },
    caller.token,
  );
  expect(refused.body.code).toBe(7);
  const single = await api.post(
    `/iam/v2beta1/roleBindings/${group}`,
    { identityUid: identities[0], roleUid: viewer },
    caller.token,
  );
  expect(single.body.code).toBe(refused.body.code);
  // A group it cannot see reads as missing, exactly as one create's parent does.
  const hidden = await freshGroup("hidden");
  const unseen = await api.post(
    BATCH,
    { parent: hidden, requests: [sub(identities[0]!, viewer)] },
    caller.token,
  );
  const unseenSingle = await api.post(
    `/iam/v2beta1/roleBindings/${hidden}`,
    { identityUid: identities[0], roleUid: viewer },
    caller.token,
  );
  expect([unseen.status, unseen.body.code, unseen.body.message]).toEqual([
    unseenSingle.status,
    unseenSingle.body.code,
    unseenSingle.body.message,
  ]);
  // A role that may bind but holds only the binding capabilities: granting editor escalates.
  const binder = (
    await api.post(`/iam/v2beta1/roles/${folder}`, {
      name: "binder",
      capabilities: [
        "CAP_IAM_ROLE_BINDINGS_CREATE",
        "CAP_IAM_ROLE_BINDINGS_LIST",
        "CAP_IAM_IDENTITY_LIST",
        "CAP_IAM_GROUPS_LIST",
        "CAP_IAM_ROLES_LIST",
      ],
    })
  ).body.uid;
  // Bound on the folder, where the identities live: it sees them, and may bind on every group below.
  await api.post(`/iam/v2beta1/roleBindings/${folder}`, { identityUid: caller.uid, roleUid: binder });
  const escalation = await api.post(
    BATCH,
    { parent: group, requests: [sub(identities[0]!, binder), sub(identities[1]!, editor)] },
    caller.token,
  );
  expect([escalation.status, escalation.body.code]).toEqual([403, 7]);
  expect(escalation.body.message).toMatch(/requests\[1\]\.roleBinding\.roleUid/);
  expect(await pairsOn(group)).toEqual([`${caller.uid} ${viewer}`]);
  const allowed = await api.post(
    BATCH,
    { parent: group, requests: [sub(identities[0]!, binder)] },
    caller.token,
  );
  expect(allowed.status).toBe(200);
});

test("atomic under injected faults: each batch leaves all of its bindings or none (fast-check, fixed seed)", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom("status", "drop", "applyThenDrop", "none"),
      fc.integer({ min: 1, max: 25 }),
      async (action, size) => {
        const group = await freshGroup();
        api.emulator.faults.clear();
        if (action !== "none")
          api.emulator.faults.add({
            path: "roleBindings:batchCreate$",
            action: action as "status",
            ...(action === "status" ? { status: 503 } : {}),
          });
        const requests = identities.slice(0, size).map((id) => sub(id, viewer));
        const answer = await api.post(BATCH, { parent: group, requests }).catch(() => undefined);
        api.emulator.faults.clear();
        const stored = await pairsOn(group);
        const applied = action === "none" || action === "applyThenDrop";
        expect(stored).toHaveLength(applied ? size : 0);
        expect(answer?.status).toBe(action === "none" ? 200 : action === "status" ? 503 : undefined);
      },
    ),
    { seed: 35_2, numRuns: 24 },
  );
});

test("a refusal in the middle of a batch undoes the creates before it", async () => {
  const group = await freshGroup();
  const before = JSON.stringify(api.emulator.snapshot());
  const requests = [
    ...identities.slice(0, 12).map((id) => sub(id, viewer)),
    sub(`${folder}/fedcba9876543210`, viewer),
    ...identities.slice(12, 20).map((id) => sub(id, viewer)),
  ];
  const answer = await api.post(BATCH, { parent: group, requests });
  expect(details(answer.body).fieldViolations.map((v) => v.field)).toEqual([
    "requests[12].roleBinding.identityUid",
  ]);
  expect(JSON.stringify(api.emulator.snapshot())).toBe(before);
});

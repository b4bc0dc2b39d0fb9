/**
 * The emulator behaves like the service in production, each behaviour behind an option that is
 * off by default.
 *
 *   - propagationDelayMs: a new group, role or role binding is not effective for authorization until that long
 *     after its creation (emulator clock); what depends on it gets 404 / 403 meanwhile, then works.
 *   - tokenLifetimeMs: how long an exchanged token lives (default one hour, the spec's).
 *   - the advanceClock fault: the clock jumps just before a request, so a token can expire between two steps.
 */
import { details, start, type Api } from "./helpers";

const DELAY = 30_000;
const HOUR = 3600_000;

async function ownerRole(api: Api): Promise<string> {
  return (await api.get("/iam/v2beta1/roles?name=owner")).body.roles[0].uid;
}

describe("propagation delay", () => {
  let api: Api;
  let org: string;
  beforeAll(async () => {
    api = await start({ propagationDelayMs: DELAY });
    org = api.emulator.orgUid;
  });
  afterAll(() => api.emulator.close());

  test("a new group: not found, nor anything under it, until the delay has passed", async () => {
    const group = await api.post(`/iam/v2beta1/groups/${org}`, { name: "fresh" });
    expect(group.status).toBe(200);
    const uid = group.body.uid as string;
    const read = await api.get(`/iam/v2beta1/groups/${uid}`);
    expect([read.status, read.body.code]).toEqual([404, 5]);
    const child = await api.post(`/iam/v2beta1/groups/${uid}`, { name: "child" });
    expect([child.status, child.body.code]).toEqual([404, 5]);
    // Refused requests change nothing: the child was not created.
    api.emulator.clock.advance(DELAY - 1000);
    expect((await api.get(`/iam/v2beta1/groups/${uid}`)).status).toBe(404);
    api.emulator.clock.advance(1000);
    expect((await api.get(`/iam/v2beta1/groups/${uid}`)).status).toBe(200);
    expect((await api.get(`/iam/v2beta1/groups?uidp.children_of=${uid}`)).body.groups).toEqual([]);
    expect((await api.post(`/iam/v2beta1/groups/${uid}`, { name: "child" })).status).toBe(200);
  });

  test("a new organization and its creator's owner binding propagate too", async () => {
    const created = await api.post("/iam/v2beta1/groups", { name: "new-org" });
    expect(created.status).toBe(200);
    expect((await api.get(`/iam/v2beta1/groups/${created.body.uid}`)).status).toBe(404);
    api.emulator.clock.advance(DELAY);
    expect((await api.get(`/iam/v2beta1/groups/${created.body.uid}`)).status).toBe(200);
  });

  test("a new role: a binding that names it is not found until the delay has passed", async () => {
    const identity = await api.post(`/iam/v2beta1/identities/${org}`, {
      name: "ci",
      claimMatch: { issuer: `${api.emulator.url}/oidc`, subject: "ci" },
    });
    const role = await api.post(`/iam/v2beta1/roles/${org}`, {
      name: "reader",
      capabilities: ["CAP_IAM_GROUPS_LIST"],
    });
    expect(role.status).toBe(200);
    const early = await api.post(`/iam/v2beta1/roleBindings/${org}`, {
      identityUid: identity.body.uid,
      roleUid: role.body.uid,
    });
    expect([early.status, early.body.code]).toEqual([404, 5]);
    expect(early.body.message).toContain(role.body.uid);
    api.emulator.clock.advance(DELAY);
    const later = await api.post(`/iam/v2beta1/roleBindings/${org}`, {
      identityUid: identity.body.uid,
      roleUid: role.body.uid,
    });
    expect(later.status).toBe(200);
  });

  test("a new binding grants nothing until the delay has passed", async () => {
    const identity = await api.post(`/iam/v2beta1/identities/${org}`, {
      name: "deployer",
      claimMatch: { issuer: `${api.emulator.url}/oidc`, subject: "deployer" },
    });
    const binding = await api.post(`/iam/v2beta1/roleBindings/${org}`, {
      identityUid: identity.body.uid,
      roleUid: await ownerRole(api),
    });
    expect(binding.status).toBe(200);
    const idToken = await api.emulator.mintIdToken({ subject: "deployer", expiresInSeconds: 3600 });
    const exchanged = await api.get(
      `/sts/exchange?identity=${encodeURIComponent(identity.body.uid)}`,
      idToken,
    );
    expect(exchanged.status).toBe(200);
    const early = await api.get(`/iam/v2beta1/groups/${org}`, exchanged.body.token);
    expect([early.status, early.body.code]).toEqual([404, 5]);
    api.emulator.clock.advance(DELAY);
    expect((await api.get(`/iam/v2beta1/groups/${org}`, exchanged.body.token)).status).toBe(200);
  });

  test("seeded and bootstrap objects are effective at once", async () => {
    api.emulator.reset();
    expect((await api.get(`/iam/v2beta1/groups/${org}`)).status).toBe(200);
    api.emulator.seed({ groups: [{ name: "seeded" }] });
    const listed = await api.get(`/iam/v2beta1/groups?uidp.children_of=${org}&name=seeded`);
    expect((await api.get(`/iam/v2beta1/groups/${listed.body.groups[0].uid}`)).status).toBe(200);
  });
});

test("without the option, everything is effective at once", async () => {
  const api = await start();
  try {
    const group = await api.post(`/iam/v2beta1/groups/${api.emulator.orgUid}`, { name: "now" });
    expect((await api.get(`/iam/v2beta1/groups/${group.body.uid}`)).status).toBe(200);
    expect((await api.post(`/iam/v2beta1/groups/${group.body.uid}`, { name: "child" })).status).toBe(200);
  } finally {
    await api.emulator.close();
  }
});

describe("token lifetime", () => {
  async function exchangedToken(api: Api): Promise<{ token: string; expiry: string }> {
    const org = api.emulator.orgUid;
    const identity = await api.post(`/iam/v2beta1/identities/${org}`, {
      name: "ci",
      claimMatch: { issuer: `${api.emulator.url}/oidc`, subject: "ci" },
    });
    await api.post(`/iam/v2beta1/roleBindings/${org}`, {
      identityUid: identity.body.uid,
      roleUid: await ownerRole(api),
    });
    const idToken = await api.emulator.mintIdToken({ subject: "ci", expiresInSeconds: 24 * 3600 });
    const r = await api.get(`/sts/exchange?identity=${encodeURIComponent(identity.body.uid)}`, idToken);
    expect(r.status).toBe(200);
    return r.body;
  }

  test("tokenLifetimeMs sets how long an exchanged token lives on the emulator clock", async () => {
    const api = await start({ tokenLifetimeMs: 60_000 });
    try {
      const { token, expiry } = await exchangedToken(api);
      const left = Date.parse(expiry) - api.emulator.clock.now().getTime();
      expect(left).toBeGreaterThan(55_000);
      expect(left).toBeLessThanOrEqual(60_000);
      expect((await api.get(`/iam/v2beta1/groups/${api.emulator.orgUid}`, token)).status).toBe(200);
      api.emulator.clock.advance(60_000);
      const expired = await api.get(`/iam/v2beta1/groups/${api.emulator.orgUid}`, token);
      expect([expired.status, expired.body.code, expired.body.message]).toEqual([
        401,
        16,
        expect.stringContaining("expired"),
      ]);
    } finally {
      await api.emulator.close();
    }
  });

  test("an option that is not a whole number of ms is refused, naming it", async () => {
    await expect(start({ tokenLifetimeMs: 1.5 })).rejects.toThrow(/tokenLifetimeMs/);
    await expect(start({ propagationDelayMs: -1 })).rejects.toThrow(/propagationDelayMs/);
  });

  test("an advanceClock fault moves the clock just before a request: the token expires between two steps", async () => {
    const api = await start();
    try {
      const { token } = await exchangedToken(api);
      const org = api.emulator.orgUid;
      expect((await api.get(`/iam/v2beta1/groups/${org}`, token)).status).toBe(200);
      const before = api.emulator.clock.now().getTime();
      const added = await api.post(
        "/_emulator/faults",
        {
          method: "POST",
          path: "^/iam/v2beta1/groups/",
          action: "advanceClock",
          advanceMs: 2 * HOUR,
          times: 1,
        },
        null,
      );
      expect(added.status).toBe(200);
      const refused = await api.post(`/iam/v2beta1/groups/${org}`, { name: "late" }, token);
      expect([refused.status, refused.body.code]).toEqual([401, 16]);
      expect(api.emulator.clock.now().getTime() - before).toBeGreaterThanOrEqual(2 * HOUR);
      // The rule is spent; the bootstrap user's token (ten years) still works, and nothing was created.
      const listed = await api.get(`/iam/v2beta1/groups?uidp.children_of=${org}&name=late`);
      expect(listed.body.groups).toEqual([]);
    } finally {
      await api.emulator.close();
    }
  });

  test("an advanceClock fault without advanceMs is code 3 naming it", async () => {
    const api = await start();
    try {
      const r = await api.post("/_emulator/faults", { action: "advanceClock" }, null);
      expect([r.status, r.body.code]).toEqual([400, 3]);
      expect(details(r.body).fieldViolations.map((v) => v.field)).toEqual(["advanceMs"]);
    } finally {
      await api.emulator.close();
    }
  });
});

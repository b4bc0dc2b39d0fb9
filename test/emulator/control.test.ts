/** Control endpoints under /_emulator/: reset, seed, users, clock, request log, faults. */
import { start, type Api } from "./helpers";

let api: Api;
let org: string;
beforeAll(async () => {
  api = await start({ faultSeed: 42 });
  org = api.emulator.orgUid;
});
afterEach(async () => {
  await api.del("/_emulator/faults", null);
});
afterAll(() => api.emulator.close());

describe("control endpoints", () => {
  test("health, users, clock advance need no token", async () => {
    expect((await api.get("/_emulator/health", null)).body).toEqual({ status: "ok" });
    const user = await api.post("/_emulator/users", { name: "alice" }, null);
    expect(user.body.uid).toMatch(/^[0-9a-f]{40}$/);
    expect((await api.get("/iam/v2beta1/groups", user.body.token)).body.groups).toEqual([]);
    const before = api.emulator.clock.now().getTime();
    const advanced = await api.post("/_emulator/clock/advance", { ms: 86_400_000 }, null);
    expect(Date.parse(advanced.body.now) - before).toBeGreaterThanOrEqual(86_400_000);
    expect((await api.post("/_emulator/clock/advance", { ms: -1 }, null)).body.code).toBe(3);
  });

  test("seed through the control endpoint, then reset keeps the bootstrap token and organization", async () => {
    const seeded = await api.post(
      "/_emulator/seed",
      { repos: [{ name: "busybox", tags: [{ name: "latest", digest: "sha256:1" }] }] },
      null,
    );
    expect(seeded.body).toEqual({ groups: 0, repos: 1, tags: 1, advisories: 0 });
    await api.post(`/iam/v2beta1/groups/${org}`, { name: "temp" });
    expect((await api.get("/registry/v2beta1/repos")).body.totalCount).toBe("1");
    expect((await api.post("/_emulator/reset", undefined, null)).status).toBe(200);
    expect((await api.get("/registry/v2beta1/repos")).body.totalCount).toBe("0");
    const groups = await api.get("/iam/v2beta1/groups");
    expect(groups.body.groups.map((g: { uid: string }) => g.uid)).toEqual([org]);
    const bad = await api.post("/_emulator/seed", { repos: [{ description: "no name" }] }, null);
    expect(bad.body.code).toBe(3);
  });

  test("seeding groups: in order, with optional uids that must sit under their parent", async () => {
    const folder = `${org}/00000000000000aa`;
    const r = await api.post(
      "/_emulator/seed",
      {
        groups: [
          { uid: folder, name: "seeded" },
          { parent: folder, name: "below" },
        ],
      },
      null,
    );
    expect(r.body.groups).toBe(2);
    expect(
      (await api.get(`/iam/v2beta1/groups?uidp.children_of=${folder}`)).body.groups.map(
        (g: { name: string }) => g.name,
      ),
    ).toEqual(["below"]);
    for (const groups of [
      [{ uid: `${"b".repeat(40)}/00000000000000cc`, name: "x" }],
      [{ uid: folder, name: "dup" }],
      [{ name: "Bad Name" }],
    ]) {
      expect((await api.post("/_emulator/seed", { groups }, null)).body.code).toBe(3);
    }
  });

  test("the request log holds API requests (method, path, query, status, identity, time), not control ones", async () => {
    api.emulator.clearRequestLog();
    await api.get(`/iam/v2beta1/groups?name=demo-org`);
    await api.get(`/iam/v2beta1/groups/${org}/0123456789abcdef`);
    await api.get("/_emulator/health", null);
    const log = (await api.get("/_emulator/requests", null)).body.requests;
    expect(log).toEqual([
      expect.objectContaining({
        method: "GET",
        path: "/iam/v2beta1/groups",
        query: { name: "demo-org" },
        status: 200,
        identityUid: api.emulator.userUid,
      }),
      expect.objectContaining({
        method: "GET",
        path: `/iam/v2beta1/groups/${org}/0123456789abcdef`,
        status: 404,
      }),
    ]);
    expect(log[0].time).toMatch(/Z$/);
    expect(JSON.stringify(log)).not.toContain(api.emulator.token);
  });

  test("status fault: AIP-193 body, 503 → code 14, Retry-After: 0; times limits it", async () => {
    await api.post(
      "/_emulator/faults",
      { method: "GET", path: "^/iam/v2beta1/groups$", action: "status", status: 503, times: 2 },
      null,
    );
    for (let i = 0; i < 2; i++) {
      const r = await api.get("/iam/v2beta1/groups");
      expect([r.status, r.body.code, r.headers.get("retry-after")]).toEqual([503, 14, "0"]);
    }
    expect((await api.get("/iam/v2beta1/groups")).status).toBe(200);
    await api.post(
      "/_emulator/faults",
      { path: "^/iam/v2beta1/roles$", action: "status", status: 429, times: 1 },
      null,
    );
    const limited = await api.get("/iam/v2beta1/roles");
    expect([limited.status, limited.body.code, limited.headers.get("retry-after")]).toEqual([429, 8, "0"]);
  });

  test("a rule that has fired all its times is listed as spent, one still live as live", async () => {
    await api.post(
      "/_emulator/faults",
      { path: "^/iam/v2beta1/roles$", action: "status", status: 503, times: 1 },
      null,
    );
    await api.post("/_emulator/faults", { path: "^/never$", action: "drop", times: 2 }, null);
    const before = (await api.get("/_emulator/faults", null)).body.faults;
    expect(before.map((f: { fired: number; spent: boolean }) => [f.fired, f.spent])).toEqual([
      [0, false],
      [0, false],
    ]);
    expect((await api.get("/iam/v2beta1/roles")).status).toBe(503);
    expect((await api.get("/iam/v2beta1/roles")).status).toBe(200);
    const after = (await api.get("/_emulator/faults", null)).body.faults;
    expect(after).toEqual([
      { path: "^/iam/v2beta1/roles$", action: "status", status: 503, times: 1, fired: 1, spent: true },
      { path: "^/never$", action: "drop", times: 2, fired: 0, spent: false },
    ]);
  });

  test("drop destroys the socket without a response", async () => {
    await api.post("/_emulator/faults", { path: "groups", action: "drop", times: 1 }, null);
    await expect(api.get("/iam/v2beta1/groups")).rejects.toThrow();
    expect((await api.get("/iam/v2beta1/groups")).status).toBe(200);
  });

  test("a status fault and a drop change nothing; only the status is logged, once", async () => {
    await api.post("/_emulator/faults", { method: "POST", action: "status", status: 503, times: 1 }, null);
    await api.post("/_emulator/faults", { method: "POST", action: "drop", times: 1 }, null);
    await api.del("/_emulator/requests", null);
    expect((await api.post(`/iam/v2beta1/groups/${org}`, { name: "refused" })).status).toBe(503);
    await expect(api.post(`/iam/v2beta1/groups/${org}`, { name: "dropped" })).rejects.toThrow();
    for (const name of ["refused", "dropped"])
      expect((await api.get(`/iam/v2beta1/groups?name=${name}`)).body.totalCount).toBe("0");
    const posts = api.emulator.requestLog().filter((r) => r.method === "POST");
    expect(posts.map((r) => r.status)).toEqual([503]);
  });

  test("applyThenDrop performs the change, then drops the connection", async () => {
    await api.post("/_emulator/faults", { method: "POST", action: "applyThenDrop", times: 1 }, null);
    await expect(api.post(`/iam/v2beta1/groups/${org}`, { name: "applied" })).rejects.toThrow();
    expect((await api.get(`/iam/v2beta1/groups?name=applied`)).body.totalCount).toBe("1");
  });

  test("stall delays the answer", async () => {
    await api.post("/_emulator/faults", { action: "stall", stallMs: 300, times: 1 }, null);
    const begin = Date.now();
    expect((await api.get("/iam/v2beta1/groups")).status).toBe(200);
    expect(Date.now() - begin).toBeGreaterThanOrEqual(280);
  });

  test("rates use a seeded PRNG: the same seed fires on the same requests", async () => {
    const pattern = async () => {
      await api.del("/_emulator/faults", null);
      await api.post(
        "/_emulator/faults",
        { path: "^/iam/v2beta1/roles$", action: "status", status: 500, rate: 0.5 },
        null,
      );
      const statuses: number[] = [];
      for (let i = 0; i < 16; i++) statuses.push((await api.get("/iam/v2beta1/roles")).status);
      return statuses;
    };
    const first = await pattern();
    expect(first).toContain(500);
    expect(first).toContain(200);
    expect(await pattern()).toEqual(first);
  });

  test("invalid fault rules are code 3", async () => {
    expect((await api.post("/_emulator/faults", { action: "explode" }, null)).body.code).toBe(3);
    expect((await api.post("/_emulator/faults", { action: "status", status: 200 }, null)).body.code).toBe(3);
    expect((await api.post("/_emulator/faults", { action: "drop", path: "(" }, null)).body.code).toBe(3);
  });
});

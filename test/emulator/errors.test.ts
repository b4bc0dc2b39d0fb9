/** AIP-193 errors: codes, HTTP statuses, message prefixes and details, for every kind of bad request. */
import { RFC3339_MS, details, type Api, startInOrg } from "./helpers";

let api: Api;
let org: string;
beforeAll(async () => {
  ({ api, org } = await startInOrg());
});
afterAll(() => api.emulator.close());

describe("errors", () => {
  test("create group with an empty body: code 3, HTTP 400, a field violation on name", async () => {
    const r = await api.call("POST", `/iam/v2beta1/groups/${org}`, {});
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(3);
    expect(r.body.message).toMatch(/^Invalid argument: /);
    const d = details(r.body);
    expect(d.errorInfo).toEqual(
      expect.objectContaining({ reason: "INVALID_ARGUMENT", domain: "iam.platform.local" }),
    );
    expect(d.fieldViolations.map((v) => v.field)).toEqual(["name"]);
  });

  test("a name breaking ^[a-z0-9 ._-]{1,}$ is rejected with a violation on name only", async () => {
    for (const name of ["Team", "", "a/b", "émoji"]) {
      const r = await api.post(`/iam/v2beta1/groups/${org}`, { name, description: "fine" });
      expect(r.body.code).toBe(3);
      expect(details(r.body).fieldViolations.map((v) => v.field)).toEqual(["name"]);
    }
    const ok = await api.post(`/iam/v2beta1/groups/${org}`, { name: "a-z 0.9_ok" });
    expect(ok.status).toBe(200);
  });

  test("wrong types name exactly the failing nested fields", async () => {
    const r = await api.post(`/iam/v2beta1/identities/${org}`, {
      name: "bot",
      claimMatch: { issuer: 7, subject: "x" },
    });
    expect(r.body.code).toBe(3);
    expect(details(r.body).fieldViolations.map((v) => v.field)).toEqual(["claimMatch.issuer"]);
    const two = await api.post(`/iam/v2beta1/roles/${org}`, { name: 5, capabilities: [] });
    expect(
      details(two.body)
        .fieldViolations.map((v) => v.field)
        .sort(),
    ).toEqual(["capabilities", "name"]);
  });

  test("malformed JSON is code 3, never a 500", async () => {
    const r = await api.call("POST", `/iam/v2beta1/groups/${org}`, { raw: '{"name": ' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(3);
    const nonObject = await api.call("POST", `/iam/v2beta1/groups/${org}`, { raw: "[1,2]" });
    expect(nonObject.body.code).toBe(3);
  });

  test("an oversized body is RESOURCE_EXHAUSTED (8), HTTP 429 as grpc-gateway maps it, as over gRPC", async () => {
    const r = await api.post(`/iam/v2beta1/groups/${org}`, {
      name: "big",
      description: "x".repeat(1024 * 1024 + 10),
    });
    expect([r.status, r.body.code]).toEqual([429, 8]);
    expect(r.body.message).toMatch(/at most 1048576 bytes/);
    // Not worth a retry as it is: no retry hint.
    expect(r.headers.get("retry-after")).toBeNull();
    expect(api.emulator.snapshot().groups.some((g) => g.fields.name === "big")).toBe(false);
  });

  test("unknown routes are code 5; a known path with an unsupported method is code 12", async () => {
    const unknown = await api.get("/iam/v2beta1/nothing");
    expect([unknown.status, unknown.body.code]).toEqual([404, 5]);
    expect(unknown.body.message).toMatch(/^Not found: /);
    const method = await api.call("PATCH", `/iam/v2beta1/groupInvites/${org}/0123456789abcdef`, { body: {} });
    expect([method.status, method.body.code]).toEqual([405, 12]);
  });

  test("unknown uid is code 5", async () => {
    const r = await api.get(`/iam/v2beta1/groups/${org}/0123456789abcdef`);
    expect([r.status, r.body.code]).toEqual([404, 5]);
  });

  test("missing, bad and expired tokens are code 16 with HTTP 401", async () => {
    for (const token of [null, "nope"]) {
      const r = await api.get("/iam/v2beta1/groups", token);
      expect([r.status, r.body.code]).toEqual([401, 16]);
      expect(r.body.message).toMatch(/^Unauthenticated: /);
    }
    const noBearer = await api.call("GET", "/iam/v2beta1/groups", {
      token: null,
      headers: { authorization: "Basic abc" },
    });
    expect(noBearer.body.code).toBe(16);
  });

  test("deleting a group with children: code 9, RESOURCE_NOT_EMPTY naming what is left", async () => {
    const parent = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "parent" })).body.uid as string;
    await api.post(`/iam/v2beta1/groups/${parent}`, { name: "one" });
    await api.post(`/iam/v2beta1/groups/${parent}`, { name: "two" });
    await api.post(`/iam/v2beta1/identities/${parent}`, {
      name: "bot",
      claimMatch: { issuer: "https://i", subject: "s" },
    });
    const r = await api.del(`/iam/v2beta1/groups/${parent}`);
    expect([r.status, r.body.code]).toEqual([400, 9]);
    expect(r.body.message).toMatch(/^Precondition failed: /);
    const d = details(r.body);
    expect(d.errorInfo?.reason).toBe("FAILED_PRECONDITION");
    expect(d.violations).toHaveLength(1);
    expect(d.violations[0]?.type).toBe("RESOURCE_NOT_EMPTY");
    expect(d.violations[0]?.description).toContain("2 subgroups, 1 identity");
    expect((await api.get(`/iam/v2beta1/groups/${parent}`)).status).toBe(200);
  });

  test("deleting a group with repos is refused too", async () => {
    const group = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "withrepo" })).body.uid as string;
    api.emulator.seed({ repos: [{ name: "nginx", group }] });
    const r = await api.del(`/iam/v2beta1/groups/${group}`);
    expect(r.body.code).toBe(9);
    expect(details(r.body).violations[0]?.description).toContain("1 repo");
  });

  test("error bodies carry timestamps nowhere and successes carry RFC 3339 ms timestamps", async () => {
    const r = await api.post(`/iam/v2beta1/groups/${org}`, { name: "ts" });
    expect(r.body.createTime).toMatch(RFC3339_MS);
  });
});

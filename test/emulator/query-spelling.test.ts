/**
 * Every list parameter is accepted in both spellings, snake_case (what the SDK sends, the spec's names)
 * and camelCase (the OpenAPI's names), as the real service does (spec README). Each case checks that the
 * parameter has an effect at all (the filtered answer differs from the unfiltered one) and that both
 * spellings give that same answer, so losing either spelling fails here.
 */
import { advisoryIds, enc, start, type Api } from "./helpers";

let api: Api;
let org: string;
let folder: string;

/** Two advisories that differ in every filterable member: filters pick exactly one. */
const ADVISORIES = [1, 2].map((n) => ({
  advisoryId: `CGA-000${n}`,
  legacyAdvisoryId: `LEGACY-${n}`,
  aliases: [`CVE-2026-000${n}`],
  artifactName: `artifact-${n}`,
  artifactType: `type-${n}`,
  artifactArchitecture: n === 1 ? "x86_64" : "aarch64",
  componentName: `component-${n}`,
  componentType: `ctype-${n}`,
  componentLocation: `/usr/lib/${n}`,
}));

beforeAll(async () => {
  api = await start({ seed: { advisories: ADVISORIES } });
  org = api.emulator.orgUid;
  folder = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "folder" })).body.uid;
  await api.post(`/iam/v2beta1/groups/${folder}`, { name: "inner" });
  await api.post(`/iam/v2beta1/groups/${org}`, { name: "second" });
});
afterAll(() => api.emulator.close());

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

async function groupNames(query: string): Promise<string[]> {
  const response = await api.get(`/iam/v2beta1/groups?${query}`);
  expect(response.status).toBe(200);
  return response.body.groups.map((g: { name: string }) => g.name);
}

describe("advisory filters in both spellings", () => {
  const cases: [string, string][] = [
    ["advisoryIds", "advisoryId"],
    ["legacyAdvisoryIds", "legacyAdvisoryId"],
    ["artifactNames", "artifactName"],
    ["artifactTypes", "artifactType"],
    ["artifactArchitectures", "artifactArchitecture"],
    ["componentNames", "componentName"],
    ["componentTypes", "componentType"],
    ["componentLocations", "componentLocation"],
  ];

  test.each(cases)("%s / its snake_case form select only the matching advisory", async (camel, member) => {
    const value = (ADVISORIES[1] as Record<string, unknown>)[member] as string;
    expect(snake(camel)).not.toBe(camel);
    expect(await advisoryIds(api, "")).toEqual(["CGA-0001", "CGA-0002"]);
    expect(await advisoryIds(api, `${camel}=${enc(value)}`)).toEqual(["CGA-0002"]);
    expect(await advisoryIds(api, `${snake(camel)}=${enc(value)}`)).toEqual(["CGA-0002"]);
  });
});

describe("generic list parameters in both spellings", () => {
  test("uidp.children_of / uidp.childrenOf and uidp.descendants_of / uidp.descendantsOf", async () => {
    for (const name of ["uidp.children_of", "uidp.childrenOf"])
      expect(await groupNames(`${name}=${folder}`)).toEqual(["inner"]);
    for (const name of ["uidp.descendants_of", "uidp.descendantsOf"])
      expect(await groupNames(`${name}=${folder}`)).toEqual(["inner"]);
  });

  test("order_by / orderBy and page_size / pageSize", async () => {
    const all = await groupNames(`uidp.children_of=${org}`);
    expect(all.length).toBeGreaterThan(1);
    const desc = [...all].sort().reverse();
    for (const order of ["order_by", "orderBy"])
      expect(await groupNames(`uidp.children_of=${org}&${order}=${enc("name desc")}`)).toEqual(desc);
    for (const size of ["page_size", "pageSize"])
      expect(await groupNames(`uidp.children_of=${org}&order_by=name&${size}=1`)).toEqual([
        [...all].sort()[0],
      ]);
  });

  test("page_token / pageToken continue the same query", async () => {
    const first = await api.get(`/iam/v2beta1/groups?uidp.children_of=${org}&order_by=name&page_size=1`);
    const token = first.body.nextPageToken as string;
    expect(token).toBeTruthy();
    const next = [];
    for (const name of ["page_token", "pageToken"]) {
      const page = await api.get(
        `/iam/v2beta1/groups?uidp.children_of=${org}&order_by=name&page_size=1&${name}=${enc(token)}`,
      );
      expect(page.status).toBe(200);
      next.push(page.body.groups.map((g: { name: string }) => g.name));
    }
    expect(next[0]).toEqual(next[1]);
    expect(next[0]).not.toEqual(first.body.groups.map((g: { name: string }) => g.name));
  });

  test("key_id / keyId on group invites", async () => {
    const viewer = (await api.get("/iam/v2beta1/roles?name=viewer")).body.roles[0].uid as string;
    const invites = [];
    for (let i = 0; i < 2; i++)
      invites.push(
        (await api.post(`/iam/v2beta1/groupInvites/${org}`, { roleUid: viewer, ttl: "3600s" })).body,
      );
    const keyId = invites[1].keyId as string;
    for (const name of ["key_id", "keyId"]) {
      const listed = await api.get(`/iam/v2beta1/groupInvites?${name}=${keyId}`);
      expect(listed.body.groupInvites.map((i: { uid: string }) => i.uid)).toEqual([invites[1].uid]);
    }
  });
});

/** Lists: filters, page_size, page_token, order_by, skip, totalCount, both parameter spellings. */
import { details, enc, type Api, startInOrg } from "./helpers";

let api: Api;
let org: string;
let folder: string;
let other: string;
const names = Array.from({ length: 14 }, (_, i) => `g${String(i).padStart(2, "0")}`);

beforeAll(async () => {
  ({ api, org } = await startInOrg());
  folder = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "folder" })).body.uid;
  other = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "other" })).body.uid;
  // Shuffled creation order so name order and creation order differ.
  for (const name of [...names].reverse()) {
    await api.post(`/iam/v2beta1/groups/${folder}`, { name });
    api.emulator.clock.advance(10);
  }
  await api.post(`/iam/v2beta1/groups/${other}`, { name: "g00" });
});
afterAll(() => api.emulator.close());

const list = (query: string) => api.get(`/iam/v2beta1/groups?${query}`);

describe("list groups", () => {
  test("spec example: 14 matching groups, skip=10, page_size=5 → 4 items, skipped 10", async () => {
    const r = await list(`uidp.children_of=${folder}&skip=10&page_size=5`);
    expect(r.body.groups).toHaveLength(4);
    expect(r.body.skipped).toBe(10);
    expect(r.body.totalCount).toBe("14");
    expect(r.body.nextPageToken).toBeUndefined();
  });

  test("descendants_of, children_of, name and their combinations", async () => {
    expect((await list(`uidp.descendants_of=${org}`)).body.totalCount).toBe("17");
    expect((await list(`uidp.children_of=${org}`)).body.totalCount).toBe("2");
    expect((await list(`name=g00`)).body.totalCount).toBe("2");
    const scoped = await list(`name=g00&uidp.descendants_of=${folder}`);
    expect(scoped.body.groups.map((g: { uid: string }) => g.uid.startsWith(`${folder}/`))).toEqual([true]);
    expect((await list(`name=g0`)).body.totalCount).toBe("0");
  });

  test("camelCase spellings are accepted too", async () => {
    const r = await list(`uidp.childrenOf=${folder}&pageSize=3&orderBy=${enc("name desc")}`);
    expect(r.body.groups.map((g: { name: string }) => g.name)).toEqual(["g13", "g12", "g11"]);
    const next = await list(
      `uidp.childrenOf=${folder}&pageSize=3&orderBy=${enc("name desc")}&pageToken=${enc(r.body.nextPageToken)}`,
    );
    expect(next.body.groups.map((g: { name: string }) => g.name)).toEqual(["g10", "g09", "g08"]);
  });

  test("page tokens walk every item once in the requested order", async () => {
    for (const [orderBy, expected] of [
      ["name", [...names]],
      ["name desc", [...names].reverse()],
      ["created_at", [...names].reverse()],
      ["created_at desc", [...names]],
    ] as const) {
      const seen: string[] = [];
      let token: string | undefined;
      do {
        const r = await list(
          `uidp.children_of=${folder}&page_size=4&order_by=${enc(orderBy)}${token ? `&page_token=${enc(token)}` : ""}`,
        );
        expect(r.body.totalCount).toBe("14");
        seen.push(...r.body.groups.map((g: { name: string }) => g.name));
        token = r.body.nextPageToken;
      } while (token);
      expect(seen).toEqual(expected);
    }
  });

  test("ties are broken by uid", async () => {
    const r = await list(`uidp.descendants_of=${org}&name=g00&order_by=name`);
    const uids = r.body.groups.map((g: { uid: string }) => g.uid);
    expect(uids).toEqual([...uids].sort());
  });

  test("a page token used with a different query is code 3", async () => {
    const first = await list(`uidp.children_of=${folder}&page_size=2`);
    const r = await list(`uidp.children_of=${other}&page_size=2&page_token=${enc(first.body.nextPageToken)}`);
    expect(r.body.code).toBe(3);
    expect(details(r.body).fieldViolations.map((v) => v.field)).toEqual(["page_token"]);
    const garbage = await list(`page_token=not-a-token`);
    expect(garbage.body.code).toBe(3);
  });

  test("a page token older than 3 days silently restarts from the beginning", async () => {
    const first = await list(`uidp.children_of=${folder}&page_size=2&order_by=name`);
    const second = await list(
      `uidp.children_of=${folder}&page_size=2&order_by=name&page_token=${enc(first.body.nextPageToken)}`,
    );
    expect(second.body.groups[0].name).toBe("g02");
    api.emulator.clock.advance(3 * 24 * 3600 * 1000 + 1000);
    const expired = await list(
      `uidp.children_of=${folder}&page_size=2&order_by=name&page_token=${enc(first.body.nextPageToken)}`,
    );
    expect(expired.status).toBe(200);
    expect(expired.body.groups[0].name).toBe("g00");
  });

  test("page_size: default 50, maximum 200 (clamped), 0 means default, negative or non-integer is code 3", async () => {
    for (let i = 0; i < 60; i++) await api.post(`/iam/v2beta1/groups/${other}`, { name: `bulk${i}` });
    expect((await list(`uidp.children_of=${other}`)).body.groups).toHaveLength(50);
    expect((await list(`uidp.children_of=${other}&page_size=0`)).body.groups).toHaveLength(50);
    expect((await list(`uidp.children_of=${other}&page_size=5000`)).body.groups).toHaveLength(61);
    for (const bad of ["-1", "2.5", "ten"]) {
      const r = await list(`page_size=${bad}`);
      expect(r.body.code).toBe(3);
      expect(details(r.body).fieldViolations.map((v) => v.field)).toEqual(["page_size"]);
    }
    expect((await list(`skip=-3`)).body.code).toBe(3);
  });

  test("page_size above 200 is clamped to 200", async () => {
    for (let i = 0; i < 190; i++) await api.post(`/iam/v2beta1/groups/${other}`, { name: `more${i}` });
    const r = await list(`uidp.children_of=${other}&page_size=1000`);
    expect(r.body.groups).toHaveLength(200);
    expect(r.body.nextPageToken).toEqual(expect.any(String));
    expect(r.body.totalCount).toBe("251");
  });

  test("order_by on an unknown field is code 3 naming order_by; any sortable field works", async () => {
    const r = await list(`order_by=color`);
    expect(details(r.body).fieldViolations.map((v) => v.field)).toEqual(["order_by"]);
    for (const field of ["uid", "description", "update_time desc", "updateTime", "verified desc"]) {
      expect((await list(`order_by=${enc(field)}`)).status).toBe(200);
    }
  });
});

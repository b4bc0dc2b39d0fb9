import { PagePromise, RequestError } from "../../sdk";
import { answer, harness, group, ORG } from "./helpers";

const uid = (n: number) => `${ORG}/${n.toString(16).padStart(16, "0")}`;

describe("pagination", () => {
  it("await gives one page with totalCount parsed from its string and skipped echoed", async () => {
    const { api, client } = harness();
    answer(api, 200, {
      groups: [group(uid(11)), group(uid(12)), group(uid(13)), group(uid(14))],
      totalCount: "14",
      skipped: 10,
    });
    const page = await client.groups.list({ descendantsOf: ORG, pageSize: 5, skip: 10 });
    expect(page.items).toHaveLength(4);
    expect(page.totalCount).toBe(14);
    expect(page.skipped).toBe(10);
    expect(page.nextPageToken).toBeUndefined();
  });

  it("for-await walks every page, following the cursor, and stops on an absent token", async () => {
    const { api, client } = harness();
    const pages = [
      { groups: [group(uid(1)), group(uid(2))], nextPageToken: "t1", totalCount: "5" },
      { groups: [group(uid(3)), group(uid(4))], nextPageToken: "t2", totalCount: "5" },
      { groups: [group(uid(5))], totalCount: "5" },
    ];
    const seen = answer(api, 200, (n) => pages[n], { times: 3 });
    const uids: string[] = [];
    for await (const g of client.groups.list({ childrenOf: ORG, pageSize: 2, skip: 1 })) uids.push(g.uid);
    expect(uids).toEqual([1, 2, 3, 4, 5].map(uid));
    expect(seen).toHaveLength(3);
    const params = seen.map((s) => Object.fromEntries(new URL(`http://x${s.path}`).searchParams));
    expect(params[0]).toEqual({ "uidp.children_of": ORG, page_size: "2", skip: "1" });
    // Later pages carry the cursor, the same filters and page size, and no second skip.
    expect(params[1]).toEqual({ "uidp.children_of": ORG, page_size: "2", page_token: "t1" });
    expect(params[2]).toEqual({ "uidp.children_of": ORG, page_size: "2", page_token: "t2" });
  });

  it("stops on an empty nextPageToken", async () => {
    const { api, client } = harness();
    const seen = answer(
      api,
      200,
      (n) =>
        n === 0
          ? { groups: [group(uid(1))], nextPageToken: "t1" }
          : { groups: [group(uid(2))], nextPageToken: "" },
      { times: 2 },
    );
    const all = await client.groups.list().all();
    expect(all.map((g) => g.uid)).toEqual([uid(1), uid(2)]);
    expect(seen).toHaveLength(2);
  });

  it("awaiting then iterating the same PagePromise fetches the first page once", async () => {
    const { api, client } = harness();
    const seen = answer(
      api,
      200,
      (n) => (n === 0 ? { groups: [group(uid(1))], nextPageToken: "t1" } : { groups: [group(uid(2))] }),
      { times: 2 },
    );
    const list = client.groups.list();
    const first = await list;
    expect(first.items).toHaveLength(1);
    const uids: string[] = [];
    for await (const g of list) uids.push(g.uid);
    expect(uids).toEqual([uid(1), uid(2)]);
    expect(seen).toHaveLength(2);
  });

  it("nothing is fetched until awaited or iterated", async () => {
    const { api, client } = harness();
    const seen = answer(api, 200, { groups: [] });
    const list = client.groups.list();
    await new Promise((r) => setImmediate(r));
    expect(seen).toHaveLength(0);
    await list;
    expect(seen).toHaveLength(1);
  });

  it("an empty page with a token is followed, not treated as the end", async () => {
    const { api, client } = harness();
    answer(api, 200, (n) => (n === 0 ? { nextPageToken: "t1" } : { groups: [group(uid(9))] }), { times: 2 });
    expect((await client.groups.list().all()).map((g) => g.uid)).toEqual([uid(9)]);
  });

  it("a token returned twice ends iteration with an error instead of looping", async () => {
    const pp = new PagePromise<number>(async (token) => ({
      items: [1],
      nextPageToken: "same",
      skipped: 0,
      ...(token ? {} : {}),
    }));
    await expect(pp.all()).rejects.toThrow(/page token twice/);
  });

  it.each([0, -1, 1.5, Number.NaN])(
    "pageSize %p is rejected client-side as not a positive integer",
    async (pageSize) => {
      const { client } = harness();
      const err = await client.groups.list({ pageSize }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(RequestError.isInstance(err)).toBe(true);
      expect(String((err as Error).message)).toMatch(/pageSize must be a positive integer/);
    },
  );

  it("pageSize above 200 is sent as given (clamping is the server's job)", async () => {
    const { api, client } = harness();
    const seen = answer(api, 200, { groups: [] });
    await client.groups.list({ pageSize: 500 });
    expect(seen[0]?.path).toBe("/iam/v2beta1/groups?page_size=500");
  });

  it("a page whose totalCount is not an integer is a ResponseValidationError naming the field", async () => {
    const { api, client } = harness();
    answer(api, 200, { groups: [], totalCount: "many" });
    await expect(client.groups.list()).rejects.toMatchObject({
      name: "ResponseValidationError",
      fields: ["totalCount"],
    });
  });
});

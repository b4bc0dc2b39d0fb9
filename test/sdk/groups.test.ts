import { answer, harness, group, ORG, FOLDER, TOKEN } from "./helpers";

describe("groups", () => {
  it("get keeps the / of a multi-segment uid and sends the bearer token", async () => {
    const { api, client } = harness();
    const seen = answer(api, 200, group(FOLDER));
    const g = await client.groups.get(FOLDER);
    expect(g.uid).toBe(FOLDER);
    expect(seen[0]).toMatchObject({ method: "GET", path: `/iam/v2beta1/groups/${FOLDER}` });
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("create without a parent posts to the collection (a new organization)", async () => {
    const { api, client } = harness();
    const seen = answer(api, 200, group(ORG, "acme"));
    await client.groups.create(undefined, { name: "acme" });
    expect(seen[0]).toMatchObject({ method: "POST", path: "/iam/v2beta1/groups", body: { name: "acme" } });
    expect(seen[0]?.headers["content-type"]).toBe("application/json");
  });

  it("create under a parent puts the parent uid in the path and only resource fields in the body", async () => {
    const { api, client } = harness();
    const seen = answer(api, 200, group(`${FOLDER}/0000000000000001`));
    await client.groups.create(FOLDER, { name: "team", description: "d" });
    expect(seen[0]).toMatchObject({
      method: "POST",
      path: `/iam/v2beta1/groups/${FOLDER}`,
      body: { name: "team", description: "d" },
    });
  });

  it("update sends PATCH with updateMask of exactly the defined keys and returns the updated group", async () => {
    const { api, client } = harness();
    const seen = answer(api, 200, { ...group(FOLDER), description: "new" });
    const g = await client.groups.update(FOLDER, { description: "new", name: undefined });
    expect(seen[0]).toMatchObject({
      method: "PATCH",
      path: `/iam/v2beta1/groups/${FOLDER}?updateMask=description`,
      body: { description: "new" },
    });
    expect(g.description).toBe("new");
  });

  it("update with two fields joins the mask with a comma", async () => {
    const { api, client } = harness();
    const seen = answer(api, 200, group(FOLDER));
    await client.groups.update(FOLDER, { name: "x", description: "" });
    expect(seen[0]?.path).toBe(`/iam/v2beta1/groups/${FOLDER}?updateMask=name%2Cdescription`);
    expect(seen[0]?.body).toEqual({ name: "x", description: "" });
  });

  it("update with nothing to change fails before any request", async () => {
    const { client } = harness();
    await expect(client.groups.update(FOLDER, {})).rejects.toThrow(/nothing to update/);
  });

  it("delete sends DELETE and resolves to undefined on an empty body", async () => {
    const { api, client } = harness();
    const seen = answer(api, 200, "");
    await expect(client.groups.delete(FOLDER)).resolves.toBeUndefined();
    expect(seen[0]).toMatchObject({ method: "DELETE", path: `/iam/v2beta1/groups/${FOLDER}` });
  });

  it("list spells filters and paging in snake_case and URL-encodes order_by", async () => {
    const { api, client } = harness();
    const seen = answer(api, 200, { groups: [group(FOLDER)], totalCount: "1" });
    const page = await client.groups.list({
      descendantsOf: ORG,
      childrenOf: FOLDER,
      name: "a b",
      orderBy: "name desc",
      pageSize: 200,
      skip: 10,
    });
    const url = new URL(`http://x${seen[0]?.path}`);
    expect(url.pathname).toBe("/iam/v2beta1/groups");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      "uidp.descendants_of": ORG,
      "uidp.children_of": FOLDER,
      name: "a b",
      order_by: "name desc",
      page_size: "200",
      skip: "10",
    });
    expect(seen[0]?.path).toContain("order_by=name%20desc");
    expect(page.items.map((g) => g.uid)).toEqual([FOLDER]);
  });

  it("a uid segment with reserved characters is percent-encoded, separators kept", async () => {
    const { api, client } = harness();
    const seen = answer(api, 200, group("x"));
    await client.groups.get("ab?c/d e#");
    expect(seen[0]?.path).toBe("/iam/v2beta1/groups/ab%3Fc/d%20e%23");
  });

  it("an empty uid or an empty segment is refused before any request", async () => {
    const { client } = harness();
    await expect(client.groups.get("")).rejects.toThrow(/uid is required/);
    await expect(client.groups.delete(`${ORG}//x`)).rejects.toThrow(/not a uid/);
  });
});

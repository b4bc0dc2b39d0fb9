import { harness, group, ORG, FOLDER, JSON_HEADERS, TOKEN } from "./helpers";

describe("groups", () => {
  it("gets a multi-segment uid with / kept and sends the bearer token", async () => {
    const { api, client } = harness();
    let auth: unknown;
    api
      .intercept({ method: "GET", path: `/iam/v2beta1/groups/${FOLDER}` })
      .reply(200, (opts) => {
        auth = (opts.headers as Record<string, string>)["authorization"];
        return group(FOLDER);
      }, { headers: JSON_HEADERS });
    const g = await client.groups.get(FOLDER);
    expect(g.uid).toBe(FOLDER);
    expect(auth).toBe(`Bearer ${TOKEN}`);
  });
});

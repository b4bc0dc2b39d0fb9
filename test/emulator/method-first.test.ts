/**
 * The method decides first: on every path of the route table, every method the table lacks for it is 405 with an
 * `Allow` header naming the methods it has, whatever else the request carries (query parameters, a malformed,
 * oversized or form body, no token, a web page's Origin on a control path), and changes nothing. Nothing of the
 * request is read before the method is known to be one the path answers.
 */
import { routeTable } from "../../emulator/routes/table";
import type { Control } from "../../emulator/routes/control";
import { BODY_LIMIT_BYTES } from "../../emulator/server";
import { start, type Api, type WireResponse } from "./helpers";

jest.setTimeout(120_000);

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** The table's paths as it spells them (`{uid}` for a uid), each with the methods it lists for that path. */
function pathsOfTable(): Map<string, string[]> {
  const control = new Proxy({}, { get: () => () => undefined }) as unknown as Control;
  const paths = new Map<string, string[]>();
  for (const r of routeTable(control)) {
    const path = r.url.replace(/\/\*$/, "/{uid}").replace(/::/g, ":");
    paths.set(path, [...(paths.get(path) ?? []), r.method]);
  }
  return paths;
}

let api: Api;
beforeAll(async () => {
  api = await start();
});
afterAll(() => api.emulator.close());

/**
 * Everything a request can carry besides its method and path, each of which a route would refuse on its own (a GET
 * carries no body: fetch sends none).
 */
const HOSTILE: { what: string; send: (method: string, path: string) => Promise<WireResponse> }[] = [
  {
    what: "query parameters, a malformed JSON body, no token and a web page's Origin",
    send: (method, path) =>
      api.call(method, `${path}?name=x&bogus=1&pageSize=-1`, {
        ...(method === "GET" ? {} : { raw: "{not json" }),
        token: null,
        headers: { "content-type": "application/json", origin: "https://attacker.example" },
      }),
  },
  {
    what: "a body over the size limit",
    send: (method, path) =>
      api.call(method, path, { raw: `"${"x".repeat(BODY_LIMIT_BYTES + 16)}"`, token: null }),
  },
  {
    what: "a form body",
    send: (method, path) =>
      api.call(method, path, {
        raw: "name=x",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      }),
  },
];

test("every path of the table refuses each method it lacks with 405 and Allow, before reading anything else", async () => {
  const org = api.emulator.orgUid;
  const before = api.emulator.snapshot();
  const wrong: string[] = [];
  let checked = 0;
  for (const [template, served] of pathsOfTable()) {
    const allow = [...new Set(served)].sort().join(", ");
    // A uid path with a uid, and with an empty one (fastify's `/*` routes `/groups/` to the get of uid "").
    const concrete = template.includes("{uid}")
      ? [template.replace("{uid}", org), template.replace("{uid}", "")]
      : [template];
    for (const path of concrete)
      for (const method of METHODS.filter((m) => !served.includes(m)))
        for (const { what, send } of method === "GET" ? HOSTILE.slice(0, 1) : HOSTILE) {
          const answer = await send(method, path);
          checked++;
          const got = [answer.status, answer.body?.code, answer.headers.get("allow")];
          if (JSON.stringify(got) !== JSON.stringify([405, 12, allow]))
            wrong.push(`${method} ${path} with ${what}: ${JSON.stringify(got)} ${answer.text.slice(0, 120)}`);
        }
  }
  expect(wrong).toEqual([]);
  expect(checked).toBeGreaterThan(300);
  expect(api.emulator.snapshot()).toEqual(before);
});

test("a path the table does not have is 404 before its body is read", async () => {
  for (const { send } of HOSTILE) {
    const answer = await send("POST", "/iam/v2beta1/nothing-here");
    expect([answer.status, answer.body?.code, answer.headers.get("allow")]).toEqual([404, 5, null]);
  }
});

test("a method outside the table's on a path it does not have is 404 in the envelope, as the table's methods are", async () => {
  for (const method of ["OPTIONS", "PROPFIND", "SEARCH", "MKCOL"]) {
    const answer = await api.call(method, "/iam/v2beta1/nothing-here", {});
    expect([method, answer.status, answer.body?.code]).toEqual([method, 404, 5]);
  }
});

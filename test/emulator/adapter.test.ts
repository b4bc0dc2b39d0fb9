/** The one adapter: an unexpected exception in a handler still yields an AIP-193 code 13 body, and is logged. */
import type { AddressInfo } from "node:net";
import { createClock } from "../../emulator/clock";
import { createDispatcher } from "../../emulator/dispatch";
import { Faults } from "../../emulator/faults";
import { OidcIssuer } from "../../emulator/oidc";
import { buildServer } from "../../emulator/server";
import { Service } from "../../emulator/service";
import { MemoryStore } from "../../emulator/store";
import { StalePreparation } from "../../emulator/routes/types";

type ServerOptions = Parameters<typeof buildServer>[0];

/** A server on an emulator service over `store`, with only `routes`, listening on a free port. */
async function serve(
  store: MemoryStore,
  routes: ServerOptions["routes"],
  onUnexpectedError?: (report: string) => void,
): Promise<{ app: ReturnType<typeof buildServer>; url: (path: string) => string }> {
  const clock = createClock();
  const svc = new Service(store, clock, await OidcIssuer.create(store, clock));
  const app = buildServer({
    dispatcher: createDispatcher({
      svc,
      faults: new Faults(),
      url: () => "",
      onRequestLogged: () => undefined,
      ...(onUnexpectedError ? { onUnexpectedError } : {}),
    }),
    routes,
    url: () => "",
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  return { app, url: (path) => `http://127.0.0.1:${(app.server.address() as AddressInfo).port}${path}` };
}

test("a handler that throws gets code 13 with HTTP 500 and a report, not a crash or a bare 500", async () => {
  const warnings: string[] = [];
  const { app, url } = await serve(
    new MemoryStore(),
    [
      {
        method: "GET",
        url: "/boom",
        auth: false,
        handler: () => {
          throw new TypeError("kaboom");
        },
      },
    ],
    (report) => warnings.push(report),
  );
  try {
    const response = await fetch(url("/boom"));
    expect(response.status).toBe(500);
    const body = (await response.json()) as { code: number; message: string; details: { reason?: string }[] };
    expect(body.code).toBe(13);
    expect(body.message).toMatch(/^Internal: /);
    expect(body.message).not.toContain("kaboom"); // no internals in the answer
    expect(body.details[0]?.reason).toBe("INTERNAL");
    expect(warnings.some((w) => w.includes("GET /boom") && w.includes("kaboom"))).toBe(true);
  } finally {
    await app.close();
  }
});

test("a staged route is prepared again while what it relied on changes, then refused as retryable", async () => {
  const store = new MemoryStore();
  let preparations = 0;
  let staleFor = 0;
  const handler = (): unknown => {
    // What the preparation saw is stale `staleFor` times; its write is undone each time.
    store.put("groups", { uid: `g${preparations}`, parent: "", createTime: "", fields: {} });
    if (preparations <= staleFor) throw new StalePreparation();
    return { preparations };
  };
  const route = {
    method: "GET" as const,
    url: "/staged",
    auth: false,
    prepare: async () => ++preparations,
    handler,
  };
  const served = await serve(store, [route]);
  const app = served.app;
  const url = served.url("/staged");
  try {
    staleFor = 2;
    expect(await (await fetch(url)).json()).toEqual({ preparations: 3 });
    expect([...store.all("groups")].map((g) => g.uid)).toEqual(["g3"]);
    preparations = 0;
    staleFor = Infinity;
    const refused = await fetch(url);
    expect([refused.status, refused.headers.get("retry-after")]).toEqual([503, "0"]);
    expect(((await refused.json()) as { code: number }).code).toBe(14);
    expect(preparations).toBe(5);
    expect([...store.all("groups")].map((g) => g.uid)).toEqual(["g3"]);
  } finally {
    await app.close();
  }
});

/** The one adapter: an unexpected exception in a handler still yields an AIP-193 code 13 body, and is logged. */
import type { AddressInfo } from "node:net";
import { createClock } from "../../emulator/clock";
import { createDispatcher } from "../../emulator/dispatch";
import { Faults } from "../../emulator/faults";
import { OidcIssuer } from "../../emulator/oidc";
import { buildServer } from "../../emulator/server";
import { Service } from "../../emulator/service";
import { MemoryStore } from "../../emulator/store";

test("a handler that throws gets code 13 with HTTP 500 and a report, not a crash or a bare 500", async () => {
  const warnings: string[] = [];
  const store = new MemoryStore();
  const clock = createClock();
  const svc = new Service(store, clock, await OidcIssuer.create(store, clock));
  const app = buildServer({
    dispatcher: createDispatcher({
      svc,
      faults: new Faults(),
      url: () => "",
      onRequestLogged: () => undefined,
      onUnexpectedError: (report) => warnings.push(report),
    }),
    routes: [
      {
        method: "GET",
        url: "/boom",
        auth: false,
        handler: () => {
          throw new TypeError("kaboom");
        },
      },
    ],
    url: () => "",
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  try {
    const response = await fetch(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/boom`);
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

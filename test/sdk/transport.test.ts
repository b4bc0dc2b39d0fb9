/**
 * The real transport: undici Pools against a local HTTP server (timeouts, keep-alive, headers), plus the
 * User-Agent and Content-Type rules through the MockAgent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ConnectionError, PlatformClient, TimeoutError } from "../../sdk";
import { answer, harness, group, FOLDER, JSON_HEADERS, ORG, TOKEN } from "./helpers";

const VERSION = (
  JSON.parse(readFileSync(join(__dirname, "../../package.json"), "utf8")) as { version: string }
).version;

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; server: Server; connections: () => number }> {
  const server = createServer(handler);
  let connections = 0;
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, connections: () => connections };
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe("User-Agent and Content-Type", () => {
  it("sends pulumi-platform/<package version>", async () => {
    const { api, client } = harness();
    const seen = answer(api, 200, group(FOLDER));
    await client.groups.get(FOLDER);
    expect(seen[0]?.headers["user-agent"]).toBe(`pulumi-platform/${VERSION}`);
    expect(seen[0]?.headers["content-type"]).toBeUndefined();
  });

  it("appends the userAgent option", async () => {
    const { api, client } = harness({ userAgent: "my-tool/2.0" });
    const seen = answer(api, 200, group(FOLDER));
    await client.groups.get(FOLDER);
    expect(seen[0]?.headers["user-agent"]).toBe(`pulumi-platform/${VERSION} my-tool/2.0`);
  });

  it("bodies carry Content-Type: application/json", async () => {
    const { api, client } = harness();
    const seen = answer(api, 200, group(FOLDER));
    await client.groups.update(FOLDER, { name: "n" });
    expect(seen[0]?.headers["content-type"]).toBe("application/json");
  });
});

describe("timeouts with a given dispatcher", () => {
  it("a MockAgent reply slower than timeoutMs is a TimeoutError, and the GET is not retried", async () => {
    const { api, client, sleeps } = harness({ timeoutMs: 50, maxRetries: 2 });
    let requests = 0;
    api
      .intercept({ path: () => true, method: "GET" })
      .reply(() => {
        requests++; // on arrival: the reply itself comes after the delay
        return {
          statusCode: 200,
          data: JSON.stringify(group(FOLDER)),
          responseOptions: { headers: JSON_HEADERS },
        };
      })
      .delay(300)
      .times(3);
    const err = await client.groups.get(FOLDER).catch((e: unknown) => e);
    // A TimeoutError and not the group: the client stopped waiting at its timeout, before the slower reply. No
    // wall-clock bound: on a busy machine timers fire late, but the 50 ms one always fires before the 300 ms one.
    expect(TimeoutError.isInstance(err)).toBe(true);
    // Timeouts are not retried: the request may have been applied, and waiting again multiplies the wait. One
    // request reached the mock, and the client never slept.
    expect([requests, sleeps]).toEqual([1, []]);
  });
});

describe("real pools", () => {
  let clients: PlatformClient[] = [];
  let servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(servers.map(stop));
    clients = [];
    servers = [];
  });
  const client = (apiUrl: string, extra: Partial<ConstructorParameters<typeof PlatformClient>[0]> = {}) => {
    const c = new PlatformClient({ apiUrl, token: TOKEN, env: {}, retryBaseDelayMs: 0, ...extra });
    clients.push(c);
    return c;
  };

  it("keeps connections alive across requests and sends the headers", async () => {
    const headers: IncomingMessage["headers"][] = [];
    const { url, server, connections } = await serve((req, res) => {
      headers.push(req.headers);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(group(FOLDER)));
    });
    servers.push(server);
    const c = client(url);
    for (let i = 0; i < 20; i++) await c.groups.get(FOLDER);
    // undici may open a second socket while the first is still finishing a response; never one per request.
    expect(connections()).toBeLessThanOrEqual(2);
    expect(headers[0]?.authorization).toBe(`Bearer ${TOKEN}`);
    expect(headers[0]?.["user-agent"]).toBe(`pulumi-platform/${VERSION}`);
  });

  it("caps concurrent connections per origin at maxConnections", async () => {
    let open = 0;
    let peak = 0;
    const { url, server } = await serve((_req, res) => {
      open++;
      peak = Math.max(peak, open);
      setTimeout(() => {
        open--;
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify(group(FOLDER)));
      }, 20);
    });
    servers.push(server);
    const c = client(url, { maxConnections: 2 });
    await Promise.all(Array.from({ length: 8 }, () => c.groups.get(FOLDER)));
    expect(peak).toBe(2);
  });

  it("times out when no headers arrive within timeoutMs", async () => {
    const { url, server } = await serve(() => {
      /* never answers */
    });
    servers.push(server);
    const c = client(url, { timeoutMs: 150, maxRetries: 0 });
    const started = Date.now();
    const err = await c.groups.get(FOLDER).catch((e: unknown) => e);
    expect(TimeoutError.isInstance(err)).toBe(true);
    expect((err as Error).message).toBe(`GET /iam/v2beta1/groups/${FOLDER}: no response within 150 ms`);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("times out when the body stalls after the headers", async () => {
    const { url, server } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"uid":');
    });
    servers.push(server);
    const c = client(url, { timeoutMs: 150, maxRetries: 0 });
    const err = await c.groups.create(ORG, { name: "a" }).catch((e: unknown) => e);
    expect(TimeoutError.isInstance(err)).toBe(true);
    expect((err as Error).message).toContain(`POST /iam/v2beta1/groups/${ORG}`);
  });

  it("a refused connection is a ConnectionError naming the operation", async () => {
    const { url, server } = await serve(() => undefined);
    await stop(server);
    const c = client(url, { maxRetries: 1 });
    const err = await c.groups.get(FOLDER).catch((e: unknown) => e);
    expect(ConnectionError.isInstance(err)).toBe(true);
    expect((err as Error).message).toMatch(
      new RegExp(`^GET /iam/v2beta1/groups/${FOLDER}: connection failed: `),
    );
    expect((err as Error).message).not.toContain(TOKEN);
  });

  it("a server that closes the socket mid-request on a DELETE is retried", async () => {
    let calls = 0;
    const { url, server } = await serve((req, res) => {
      calls++;
      if (calls === 1) {
        req.socket.destroy();
        return;
      }
      res.end();
    });
    servers.push(server);
    const c = client(url);
    await c.groups.delete(FOLDER);
    expect(calls).toBe(2);
  });

  it("an apiUrl with a path prefix keeps it in front of every path", async () => {
    const paths: string[] = [];
    const { url, server } = await serve((req, res) => {
      paths.push(req.url ?? "");
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(group(FOLDER)));
    });
    servers.push(server);
    const c = client(`${url}/api/`);
    await c.groups.get(FOLDER);
    expect(paths).toEqual([`/api/iam/v2beta1/groups/${FOLDER}`]);
    expect(c.apiUrl).toBe(`${url}/api`);
  });

  it("after close, requests fail instead of opening new pools", async () => {
    const { url, server } = await serve((_req, res) => res.end("{}"));
    servers.push(server);
    const c = client(url);
    await c.close();
    await expect(c.groups.get(FOLDER)).rejects.toThrow(/closed/);
    await c.close();
  });
});

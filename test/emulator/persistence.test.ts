/** --data persistence (restart loses nothing), the CLI's output and shutdown, and loopback-only control. */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { start } from "./helpers";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "emulator-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("persistence", () => {
  test("a restart on the same data file loses nothing, and the bootstrap token stays valid", async () => {
    const dataFile = join(dir, "state.json");
    const first = await start({ dataFile });
    const org = first.emulator.orgUid;
    const group = (await first.post(`/iam/v2beta1/groups/${org}`, { name: "kept", description: "d" })).body;
    const identity = (
      await first.post(`/iam/v2beta1/identities/${group.uid}`, {
        name: "bot",
        // An audience of its own: the restarted emulator listens on another port, so another service audience.
        claimMatch: { issuer: `${first.emulator.url}/oidc`, subject: "bot", audience: "bot.example" },
      })
    ).body;
    const idp = (
      await first.post(`/iam/v2beta1/identityProviders/${org}`, {
        name: "sso",
        defaultRole: (await first.get("/iam/v2beta1/roles?name=viewer")).body.roles[0].uid,
        oidc: { issuer: "https://sso.example.com", clientId: "c", clientSecret: "persisted-secret" },
      })
    ).body;
    first.emulator.seed({ repos: [{ name: "nginx" }] });
    const user = first.emulator.createUser("second");
    const token = first.emulator.token;
    const idToken = await first.emulator.mintIdToken({ subject: "bot", audience: "bot.example" });
    await first.post(`/iam/v2beta1/roleBindings/${org}`, {
      identityUid: identity.uid,
      roleUid: (await first.get("/iam/v2beta1/roles?name=viewer")).body.roles[0].uid,
    });
    const exchanged = (await first.get(`/sts/exchange?identity=${encodeURIComponent(identity.uid)}`, idToken))
      .body.token;
    await first.emulator.close();
    // Written atomically: the file parses and no temp file is left behind.
    expect(() => JSON.parse(readFileSync(dataFile, "utf8"))).not.toThrow();
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);

    const second = await start({ dataFile });
    try {
      expect(second.emulator.orgUid).toBe(org);
      expect(second.emulator.token).toBe(token);
      expect((await second.get(`/iam/v2beta1/groups/${group.uid}`)).body).toEqual(group);
      expect((await second.get(`/iam/v2beta1/identities/${identity.uid}`)).body.name).toBe("bot");
      expect((await second.get(`/iam/v2beta1/identityProviders/${idp.uid}`)).text).not.toContain(
        "persisted-secret",
      );
      expect((await second.get("/registry/v2beta1/repos")).body.totalCount).toBe("1");
      expect((await second.get("/iam/v2beta1/groups", user.token)).status).toBe(200);
      // API tokens are JWTs signed by a persisted key: an exchanged one stays valid across the restart.
      expect((await second.get(`/iam/v2beta1/groups/${org}`, exchanged)).status).toBe(200);
      // The data file holds the signing keys, never an issued token.
      expect(readFileSync(dataFile, "utf8")).not.toContain(exchanged);
      // An ID token minted before the restart still verifies: the issuer key is persisted.
      expect(
        (await second.get(`/sts/exchange?identity=${encodeURIComponent(identity.uid)}`, idToken)).status,
      ).toBe(200);
    } finally {
      await second.emulator.close();
    }
  });
});

describe("CLI", () => {
  test("prints URL, org uid and token lines, logs requests without the Authorization header, stops on SIGTERM", async () => {
    const seedFile = join(dir, "seed.json");
    writeFileSync(seedFile, JSON.stringify({ repos: [{ name: "from-seed" }] }));
    const child = spawn(
      process.execPath,
      ["-r", "ts-node/register", "emulator/cli.ts", "--port", "0", "--seed", seedFile],
      {
        cwd: join(__dirname, "..", ".."),
        env: { ...process.env, TS_NODE_TRANSPILE_ONLY: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      const deadline = Date.now() + 20_000;
      while (!/PLATFORM_ORG_UID=/.test(out) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      const url = /PLATFORM_API_URL=(\S+)/.exec(out)?.[1];
      const token = /PLATFORM_TOKEN=(\S+)/.exec(out)?.[1];
      expect(/PLATFORM_ORG_UID=[0-9a-f]{40}\s/.test(out)).toBe(true);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const response = await fetch(`${url}/registry/v2beta1/repos`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(((await response.json()) as { repos: { name: string }[] }).repos.map((r) => r.name)).toEqual([
        "from-seed",
      ]);
      await new Promise((r) => setTimeout(r, 100));
      const logLines = out.split("\n").filter((l) => l.startsWith("GET /registry"));
      expect(logLines).toEqual([expect.stringMatching(/^GET \/registry\/v2beta1\/repos 200 \d+(\.\d+)?ms$/)]);
      expect(out.split(token!).length - 1).toBe(2); // only the two token lines of the banner
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  }, 30_000);
});

describe("control endpoints are loopback-only", () => {
  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i !== undefined && i.family === "IPv4" && !i.internal)?.address;

  (external === undefined ? test.skip : test)(
    "a non-loopback client gets code 7 on /_emulator/ but may use the API",
    async () => {
      const api = await start({ host: "0.0.0.0" });
      try {
        const port = new URL(api.emulator.url).port;
        const control = await fetch(`http://${external}:${port}/_emulator/health`);
        expect(control.status).toBe(403);
        expect(((await control.json()) as { code: number }).code).toBe(7);
        const apiCall = await fetch(`http://${external}:${port}/iam/v2beta1/groups`, {
          headers: { authorization: `Bearer ${api.emulator.token}` },
        });
        expect(apiCall.status).toBe(200);
      } finally {
        await api.emulator.close();
      }
    },
  );
});

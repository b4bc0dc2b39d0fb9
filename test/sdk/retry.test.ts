import { errors } from "undici";
import {
  ConnectionError,
  InvalidArgumentError,
  NotFoundError,
  ResourceExhaustedError,
  UnavailableError,
  InternalError,
  backoffDelay,
  isIdempotentMethod,
  isRetryableError,
  parseRetryAfter,
  withRetry,
} from "../../sdk";
import {
  aip193,
  answer,
  failure,
  harness,
  group,
  FOLDER,
  JSON_HEADERS,
  ORG,
  type SeenRequest,
} from "./helpers";

const dropped = () => new errors.SocketError("other side closed");

describe("retries through the client", () => {
  it("GET is retried on 503 and then succeeds", async () => {
    const { api, client, sleeps } = harness();
    const seen: SeenRequest[] = [];
    answer(api, 503, aip193(14, "Unavailable: try later"), { seen });
    answer(api, 200, group(FOLDER), { seen });
    const g = await client.groups.get(FOLDER);
    expect(g.uid).toBe(FOLDER);
    expect(seen.map((s) => s.method)).toEqual(["GET", "GET"]);
    expect(sleeps).toEqual([0]);
  });

  it.each([429, 502, 504])("GET is retried on %i", async (status) => {
    const { api, client } = harness();
    const seen: SeenRequest[] = [];
    answer(api, status, "busy", { seen, headers: { "content-type": "text/plain" } });
    answer(api, 200, group(FOLDER), { seen });
    await client.groups.get(FOLDER);
    expect(seen).toHaveLength(2);
  });

  it("Retry-After in seconds sets the delay requested", async () => {
    const { api, client, sleeps } = harness({ retryBaseDelayMs: 100 });
    answer(api, 429, aip193(8, "Resource exhausted: slow down"), { headers: { "retry-after": "2" } });
    answer(api, 200, group(FOLDER));
    await client.groups.get(FOLDER);
    expect(sleeps).toEqual([2000]);
  });

  it("Retry-After as an HTTP date sets the delay requested", async () => {
    const { api, client, sleeps } = harness();
    const when = new Date(Date.now() + 10_000).toUTCString();
    answer(api, 503, aip193(14, "Unavailable: x"), { headers: { "retry-after": when } });
    answer(api, 200, group(FOLDER));
    await client.groups.get(FOLDER);
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThan(8000);
    expect(sleeps[0]).toBeLessThanOrEqual(10_000);
  });

  it("without Retry-After the delays back off exponentially from the base delay", async () => {
    const { api, client, sleeps } = harness({ retryBaseDelayMs: 100, maxRetries: 3 });
    answer(api, 503, aip193(14, "Unavailable: x"), { times: 4 });
    const err = await failure(client.groups.get(FOLDER));
    expect(UnavailableError.isInstance(err)).toBe(true);
    expect(sleeps).toHaveLength(3);
    // Jitter keeps each delay within [d/2, d] of 100, 200, 400.
    [100, 200, 400].forEach((d, i) => {
      expect(sleeps[i]).toBeGreaterThanOrEqual(d / 2);
      expect(sleeps[i]).toBeLessThanOrEqual(d);
    });
  });

  it("gives up after maxRetries and surfaces the last error", async () => {
    const { api, client } = harness({ maxRetries: 2 });
    const seen = answer(api, 503, aip193(14, "Unavailable: down"), { times: 3 });
    const err = await failure(client.groups.get(FOLDER));
    expect(UnavailableError.isInstance(err)).toBe(true);
    expect(seen).toHaveLength(3);
  });

  it("DELETE is retried after a dropped connection", async () => {
    const { api, client, sleeps } = harness();
    api.intercept({ path: `/iam/v2beta1/groups/${FOLDER}`, method: "DELETE" }).replyWithError(dropped());
    const seen = answer(api, 200, "");
    await client.groups.delete(FOLDER);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.method).toBe("DELETE");
    expect(sleeps).toEqual([0]);
  });

  it("GET is retried after a dropped connection (replyWithError)", async () => {
    const { api, client } = harness();
    api.intercept({ path: () => true, method: "GET" }).replyWithError(dropped());
    const seen = answer(api, 200, group(FOLDER));
    await client.groups.get(FOLDER);
    expect(seen).toHaveLength(1);
  });

  it("POST on 503 is NOT retried and surfaces UnavailableError", async () => {
    const { api, client, sleeps } = harness();
    const seen = answer(api, 503, aip193(14, "Unavailable: x"), { times: 2 });
    const err = await failure(client.groups.create(ORG, { name: "a" }));
    expect(UnavailableError.isInstance(err)).toBe(true);
    expect(seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("a batch create is a write like create: on 503 or a dropped connection it is NOT retried", async () => {
    const { api, client, sleeps } = harness();
    const seen = answer(api, 503, aip193(14, "Unavailable: x"), { times: 2 });
    const entries = [{ identityUid: `${ORG}/00000000000000bb`, roleUid: ORG }];
    expect(UnavailableError.isInstance(await failure(client.roleBindings.batchCreate(FOLDER, entries)))).toBe(
      true,
    );
    expect([seen.length, sleeps]).toEqual([1, []]);
    const dropping = harness();
    dropping.api.intercept({ path: () => true, method: "POST" }).replyWithError(dropped());
    const later = answer(dropping.api, 200, { roleBindings: [] });
    const err = await failure(dropping.client.roleBindings.batchCreate(FOLDER, entries));
    expect(ConnectionError.isInstance(err)).toBe(true);
    expect(later).toHaveLength(0);
  });

  it("POST on a dropped connection is NOT retried and surfaces ConnectionError", async () => {
    const { api, client } = harness();
    api.intercept({ path: () => true, method: "POST" }).replyWithError(dropped());
    const seen = answer(api, 200, group(FOLDER));
    const err = await failure(client.groups.create(ORG, { name: "a" }));
    expect(ConnectionError.isInstance(err)).toBe(true);
    expect((err as ConnectionError).errorCode).toBe("UND_ERR_SOCKET");
    expect((err as Error).message).toMatch(
      new RegExp(`^POST /iam/v2beta1/groups/${ORG}: connection failed: socket closed`),
    );
    expect(seen).toHaveLength(0);
  });

  it("PATCH with an updateMask on 503 IS retried: it sets the same fields to the same values again", async () => {
    const { api, client } = harness();
    const seen = answer(api, 503, aip193(14, "Unavailable: x"), { times: 2 });
    api
      .intercept({ path: () => true, method: "PATCH" })
      .reply(200, JSON.stringify(group(FOLDER)), { headers: JSON_HEADERS });
    await client.groups.update(FOLDER, { name: "b" });
    expect(seen).toHaveLength(2);
  });

  it("a retry stops when its wait would pass the time budget, however many retries are left", async () => {
    let clock = 0;
    const { api, client, sleeps } = harness({
      maxRetries: 50,
      retryBudgetMs: 10_000,
      now: () => clock,
      sleep: async (ms: number) => {
        sleeps.push(ms);
        clock += ms;
      },
    });
    const seen = answer(api, 503, aip193(14, "x"), { times: 10, headers: { "retry-after": "3" } });
    expect(UnavailableError.isInstance(await failure(client.groups.get(FOLDER)))).toBe(true);
    // Waits of 3 s at 0, 3, 6 s; a fourth would end at 12 s, past 10 s.
    expect(sleeps).toEqual([3000, 3000, 3000]);
    expect(seen).toHaveLength(4);
  });

  it.each([
    [400, 3, InvalidArgumentError],
    [404, 5, NotFoundError],
    [500, 13, InternalError],
  ] as const)("GET on %i is not retried", async (status, code, Class) => {
    const { api, client } = harness();
    const seen = answer(api, status, aip193(code, "x"), { times: 2 });
    expect(Class.isInstance(await failure(client.groups.get(FOLDER)))).toBe(true);
    expect(seen).toHaveLength(1);
  });

  it("maxRetries 0 disables retrying", async () => {
    const { api, client } = harness({ maxRetries: 0 });
    const seen = answer(api, 503, aip193(14, "x"), { times: 2 });
    await failure(client.groups.get(FOLDER));
    expect(seen).toHaveLength(1);
  });
});

describe("the retry helper", () => {
  it("parseRetryAfter reads seconds and HTTP dates", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("3", now)).toBe(3000);
    expect(parseRetryAfter("0.5", now)).toBe(500);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:07 GMT", now)).toBe(7000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it("backoffDelay doubles, caps and jitters within [d/2, d]", () => {
    expect(backoffDelay(1, 100, 10_000, () => 0)).toBe(50);
    expect(backoffDelay(1, 100, 10_000, () => 1)).toBe(100);
    expect(backoffDelay(3, 100, 10_000, () => 1)).toBe(400);
    expect(backoffDelay(20, 100, 1000, () => 1)).toBe(1000);
    expect(backoffDelay(5, 0, 1000, () => 1)).toBe(0);
  });

  it("only GET, DELETE and HEAD count as idempotent", () => {
    expect(["GET", "delete", "HEAD"].map(isIdempotentMethod)).toEqual([true, true, true]);
    expect(["POST", "PATCH", "PUT"].map(isIdempotentMethod)).toEqual([false, false, false]);
  });

  it("isRetryableError: 429/502/503/504 and connection errors only", () => {
    expect(isRetryableError(new ConnectionError({ method: "GET", path: "/" }, "reset", "ECONNRESET"))).toBe(
      true,
    );
    expect(isRetryableError(new Error("plain"))).toBe(false);
    const err = (httpStatus: number, code: number) =>
      new ResourceExhaustedError({
        method: "GET",
        path: "/",
        httpStatus,
        code,
        serviceMessage: "x",
        details: [],
      });
    expect([429, 502, 503, 504, 500, 400].map((s) => isRetryableError(err(s, 8)))).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it("withRetry lets callers decide what to retry (look up, then decide)", async () => {
    const delays: number[] = [];
    let calls = 0;
    const result = await withRetry(
      async () => {
        calls++;
        if (calls < 3) throw new Error("not yet visible");
        return "found";
      },
      {
        maxRetries: 5,
        baseDelayMs: 10,
        random: () => 1,
        shouldRetry: (e) => (e as Error).message === "not yet visible",
        sleep: async (ms) => {
          delays.push(ms);
        },
      },
    );
    expect(result).toBe("found");
    expect(delays).toEqual([10, 20]);
  });

  it("withRetry rethrows at once an error shouldRetry rejects", async () => {
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw new Error("fatal");
        },
        { maxRetries: 5, baseDelayMs: 0, shouldRetry: () => false },
      ),
    ).rejects.toThrow("fatal");
    expect(calls).toBe(1);
  });

  it("withRetry stops when its signal aborts during a wait", async () => {
    const controller = new AbortController();
    let calls = 0;
    const p = withRetry(
      async () => {
        calls++;
        throw new ConnectionError({ method: "GET", path: "/" }, "reset", "ECONNRESET");
      },
      { maxRetries: 5, baseDelayMs: 10_000, signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error("cancelled")), 10);
    await expect(p).rejects.toThrow("cancelled");
    expect(calls).toBe(1);
  });
});

/**
 * Every input is bounded (fast-check, fixed seeds):
 *
 *   4a. Each bounded field of every kind of route (durations, clock advances, token lifetimes, fault members,
 *       list integers, names, descriptions, capabilities, https URLs, seeds), API and control alike, given a value
 *       beyond its limit (huge, negative, fractional, non-numeric, 400 digits, control characters, lone
 *       surrogates, too long), answers code 3 naming exactly that field, and changes nothing.
 *   4b. Any route given hostile bodies and queries (deep nesting, huge arrays, hostile keys and values) never
 *       answers a 5xx, and every refusal is an AIP-193 body.
 *   4c. Bytes that are not HTTP still get an AIP-193 body.
 */
import fc from "fast-check";
import { connect } from "node:net";

import { details, start, type Api, type WireResponse, startInOrg } from "../emulator/helpers";

export const TARGETED_RUNS = 400;
export const HOSTILE_RUNS = 400;
export const GARBAGE_RUNS = 60;

const lone = fc.constantFrom("\ud800", "\udfff", "a\udc00b");
const control = fc.constantFrom("\u0000", "\u0007", "\u001b", "\u007f", "\u0085", "\u009f");
const withControl = fc.tuple(fc.string({ maxLength: 8 }), control).map(([s, c]) => `${s}${c}${s}`);
const tooLong = (max: number) => fc.integer({ min: max + 1, max: max + 200 }).map((n) => "x".repeat(n));
const hugeNumbers = fc.constantFrom(1e16, 1e300, -1, -1e16, 1.5, 0.1, Number.MAX_SAFE_INTEGER + 2);
const notNumbers = fc.constantFrom("5", "abc", null, true, [], {});
/** Raw JSON number text that JSON.parse reads as Infinity or as a number beyond the safe range. */
const rawHuge = fc.constantFrom("1e400", "-1e400", "9".repeat(400), "123456789012345678901234567890");

interface Bounded {
  name: string;
  field: string;
  values: fc.Arbitrary<unknown>;
  /** Builds the request; `raw` values are JSON text to splice in as is. */
  request: (value: unknown, raw: boolean) => { method: string; path: string; body?: string };
}

let api: Api;
let org: string;
let folder: string;
let viewer: string;

beforeAll(async () => {
  ({ api, org } = await startInOrg());
  folder = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "bounds" })).body.uid;
  viewer = (await api.get("/iam/v2beta1/roles?name=viewer")).body.roles[0].uid;
});
afterAll(() => api.emulator.close());

const json = (value: unknown, raw: boolean): string => (raw ? String(value) : JSON.stringify(value));
const body =
  (method: string, path: () => string, wrap: (v: string) => string) => (value: unknown, raw: boolean) => ({
    method,
    path: path(),
    body: wrap(json(value, raw)),
  });
const query = (path: (v: string) => string) => (value: unknown) => ({
  method: "GET",
  path: path(encodeURIComponent(String(value))),
});

const bounded: Bounded[] = [
  {
    name: "invite ttl",
    field: "ttl",
    values: fc.oneof(
      fc.constantFrom("9999999999999999999s", "0s", "0.0001s", "315360001s", "1e400s", "-5s", "5", "1h"),
      hugeNumbers,
    ),
    request: body(
      "POST",
      () => `/iam/v2beta1/groupInvites/${folder}`,
      (v) => `{"roleUid":"${viewer}","ttl":${v}}`,
    ),
  },
  {
    name: "clock advance",
    field: "ms",
    values: fc.oneof(hugeNumbers, notNumbers, fc.constant(3_200_000_000_000)),
    request: body(
      "POST",
      () => "/_emulator/clock/advance",
      (v) => `{"ms":${v}}`,
    ),
  },
  {
    name: "minted token lifetime",
    field: "expiresInSeconds",
    // Negative lifetimes are allowed (an already expired token), up to ten years either way.
    values: fc.constantFrom(
      1e16,
      1e300,
      -1e16,
      1.5,
      0.1,
      315_360_001,
      Number.MAX_SAFE_INTEGER + 2,
      "5",
      true,
      [],
      {},
    ),
    request: body(
      "POST",
      () => "/_emulator/oidc/mint",
      (v) => `{"subject":"s","expiresInSeconds":${v}}`,
    ),
  },
  ...(
    [
      ["stallMs", [1e16, -1, 1.5, 1e9, 60_001, "5", true]],
      ["times", [0, -1, 1.5, 1e16, 1e7, "1"]],
      ["status", [600, 399, 1.5, -1, 1e16, "503", null]],
      ["rate", [2, -1, 1.5, "0.5", 1e16, true]],
    ] as const
  ).map(([member, values]): Bounded => ({
    name: `fault ${member}`,
    field: member,
    values: fc.constantFrom(...values),
    request: body(
      "POST",
      () => "/_emulator/faults",
      (v) =>
        member === "status"
          ? `{"action":"status","path":"^/never$","status":${v}}`
          : `{"action":"stall","path":"^/never$","${member}":${v}}`,
    ),
  })),
  ...(["skip", "page_size", "pageSize"] as const).map((param): Bounded => ({
    name: `list ${param}`,
    // Named as the client spelled it, as every list parameter (emulator/README.md).
    field: param,
    values: fc.constantFrom("9".repeat(400), "-1", "1.5", "abc", "1e3", "2147483648", "0x10", "99999999999"),
    request: query((v) => `/iam/v2beta1/groups?${param}=${v}`),
  })),
  {
    name: "user name",
    field: "name",
    values: fc.oneof(withControl, lone, tooLong(256), fc.constant("tab\tname")),
    request: body(
      "POST",
      () => "/_emulator/users",
      (v) => `{"name":${v}}`,
    ),
  },
  {
    name: "group description",
    field: "description",
    values: fc.oneof(withControl, lone, tooLong(4096)),
    request: body(
      "POST",
      () => `/iam/v2beta1/groups/${folder}`,
      (v) => `{"name":"ok","description":${v}}`,
    ),
  },
  {
    name: "group description (PATCH)",
    field: "description",
    values: fc.oneof(withControl, lone, tooLong(4096)),
    request: body(
      "PATCH",
      () => `/iam/v2beta1/groups/${folder}`,
      (v) => `{"description":${v}}`,
    ),
  },
  {
    name: "identity name",
    field: "name",
    values: fc.oneof(withControl, lone, tooLong(256), fc.constant("two\nlines")),
    request: body(
      "POST",
      () => `/iam/v2beta1/identities/${folder}`,
      (v) => `{"name":${v},"claimMatch":{"issuer":"https://i.example.com","subject":"s"}}`,
    ),
  },
  {
    name: "claimMatch subject",
    field: "claimMatch.subject",
    values: fc.oneof(withControl, lone, tooLong(4096), fc.constant("")),
    request: body(
      "POST",
      () => `/iam/v2beta1/identities/${folder}`,
      (v) => `{"name":"wl","claimMatch":{"issuer":"https://i.example.com","subject":${v}}}`,
    ),
  },
  {
    name: "role capability",
    field: "capabilities[0]",
    values: fc.constantFrom("CAP_NOT_A_REAL_CAPABILITY", "CAP_IAM_GROUPS_LIS", "CAP_"),
    request: body(
      "POST",
      () => `/iam/v2beta1/roles/${folder}`,
      (v) => `{"name":"r","capabilities":[${v}]}`,
    ),
  },
  {
    name: "identity provider issuer",
    field: "oidc.issuer",
    values: fc.constantFrom(
      "javascript:alert(1)",
      "http://sso.example.com",
      "ftp://sso.example.com",
      "https://user:secret@sso.example.com",
      "data:text/html,x",
    ),
    request: body(
      "POST",
      () => `/iam/v2beta1/identityProviders/${org}`,
      (v) => `{"name":"sso","defaultRole":"${viewer}","oidc":{"issuer":${v},"clientId":"c"}}`,
    ),
  },
  {
    name: "seed group name",
    field: "groups[1].name",
    values: fc.oneof(withControl, lone, fc.constantFrom("UPPER", "", "a/b")),
    request: body(
      "POST",
      () => "/_emulator/seed",
      (v) => `{"groups":[{"name":"fine"},{"name":${v}}]}`,
    ),
  },
  {
    name: "list name filter",
    field: "name",
    values: fc.oneof(withControl, tooLong(4096)),
    request: query((v) => `/iam/v2beta1/groups?name=${v}`),
  },
];

/** What a refused request must not change: objects, clock (beyond real time), faults. */
/**
 * How far the emulator clock runs ahead of real time, in whole minutes: it changes only when the clock is advanced
 * (real time passing between two readings does not move it, unlike a reading of the clock itself).
 */
function clockLead(): number {
  return Math.round((api.emulator.clock.now().getTime() - Date.now()) / 60_000);
}

async function state(): Promise<string> {
  const groups = await api.get(`/iam/v2beta1/groups?uidp.descendants_of=${org}&page_size=200&order_by=uid`);
  const others = await Promise.all(
    ["identities", "roles", "groupInvites", "identityProviders"].map(
      async (c) => (await api.get(`/iam/v2beta1/${c}?page_size=200&order_by=uid`)).text,
    ),
  );
  const faults = (await api.get("/_emulator/faults", null)).text;
  return [groups.text, ...others, faults, clockLead()].join("\n");
}

function expectAip193(response: WireResponse): void {
  expect(typeof response.body?.code).toBe("number");
  expect(typeof response.body?.message).toBe("string");
  expect(details(response.body).errorInfo?.reason).toEqual(expect.any(String));
}

describe("property 4a: a value beyond its field's bound is code 3 naming that field, and changes nothing", () => {
  test(`${TARGETED_RUNS} generated cases over ${bounded.length} bounded fields`, async () => {
    // Numeric fields also get raw JSON numbers that parse to Infinity or beyond the safe range.
    const numeric = new Set(["ms", "expiresInSeconds", "stallMs", "times", "rate"]);
    const cases = fc.oneof(
      ...bounded.map((b) =>
        numeric.has(b.field)
          ? fc.oneof(
              b.values.map((v) => ({ b, v, raw: false })),
              rawHuge.map((v) => ({ b, v, raw: true })),
            )
          : b.values.map((v) => ({ b, v, raw: false })),
      ),
    );
    await fc.assert(
      fc.asyncProperty(cases, async ({ b, v, raw }) => {
        const before = await state();
        const { method, path, body: text } = b.request(v, raw);
        const response = await api.call(method, path, text !== undefined ? { raw: text } : {});
        expect(response.status).toBe(400);
        expectAip193(response);
        expect(response.body.code).toBe(3);
        expect(details(response.body).fieldViolations.map((f) => f.field)).toContain(b.field);
        expect(await state()).toBe(before);
      }),
      { seed: 12_04, numRuns: TARGETED_RUNS },
    );
  }, 120_000);
});

describe("property 4b: hostile bodies and queries on every route never get a 5xx", () => {
  let hostile: Api;
  let routes: [string, string][];
  beforeAll(async () => {
    hostile = await start({ seed: { repos: [{ name: "r", tags: [{ name: "t", digest: "sha256:0" }] }] } });
    const o = hostile.emulator.orgUid;
    const f = (await hostile.post(`/iam/v2beta1/groups/${o}`, { name: "f" })).body.uid;
    const collections = [
      "/iam/v2beta1/groups",
      "/iam/v2beta1/identities",
      "/iam/v2beta1/roles",
      "/iam/v2beta1/roleBindings",
      "/iam/v2beta1/identityProviders",
      "/iam/v2beta1/groupInvites",
      "/iam/v2beta1/accountAssociations",
      "/registry/v2beta1/repos",
      "/registry/v2beta1/tags",
      "/vulnerabilities/v2beta1/advisories",
    ];
    routes = [
      ...collections.flatMap((c) =>
        ["GET", "POST", "PATCH", "DELETE"].flatMap((m): [string, string][] => [
          [m, c],
          [m, `${c}/${o}`],
          [m, `${c}/${f}`],
        ]),
      ),
      ["GET", "/sts/exchange"],
      ["POST", "/sts/exchange"],
      ["GET", "/iam/v1/groups"],
      ["PUT", `/iam/v1/groups/${f}`],
      ["GET", "/registry/v1/repos"],
      ...["reset", "seed", "oidc/mint", "clock/advance", "faults", "users", "requests", "health"].flatMap(
        (p): [string, string][] => [
          ["POST", `/_emulator/${p}`],
          ["GET", `/_emulator/${p}`],
          ["DELETE", `/_emulator/${p}`],
        ],
      ),
    ];
  });
  afterAll(() => hostile.emulator.close());

  const hostileString = fc.oneof(
    withControl,
    lone,
    tooLong(4096),
    fc.string({ maxLength: 10 }),
    fc.constant("9".repeat(400)),
  );
  const hostileValue = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      hostileString,
      hugeNumbers,
      fc.constantFrom(null, true, false, 0, -0),
      fc.array(tie("value"), { maxLength: 3 }),
      fc.dictionary(hostileString, tie("value"), { maxKeys: 3 }),
    ),
  })).value;
  const deep = fc.integer({ min: 15, max: 40 }).map((n) => JSON.parse(`${"[".repeat(n)}1${"]".repeat(n)}`));
  const wide = fc.integer({ min: 999, max: 1100 }).map((n) => Array.from({ length: n }, (_, i) => i));

  test(`${HOSTILE_RUNS} generated requests`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 10_000 }),
        fc.oneof(hostileValue, deep, wide, fc.dictionary(hostileString, hostileValue, { maxKeys: 4 })),
        fc.dictionary(
          fc.constantFrom("page_size", "skip", "order_by", "name", "identity", "aud", "x\u0000"),
          hostileString,
          {
            maxKeys: 3,
          },
        ),
        async (routeIndex, payload, params) => {
          const [method, path] = routes[routeIndex % routes.length]!;
          const search = new URLSearchParams(params as Record<string, string>).toString();
          const response = await hostile.call(method, `${path}${search === "" ? "" : `?${search}`}`, {
            ...(method === "GET" || method === "DELETE" ? {} : { body: payload }),
          });
          hostile.emulator.faults.clear(); // a generated rule must not drop later requests
          expect(response.status).toBeLessThan(500);
          if (response.status >= 400) expectAip193(response);
        },
      ),
      { seed: 12_44, numRuns: HOSTILE_RUNS },
    );
  }, 120_000);
});

describe("property 4c: bytes that are not HTTP still get an AIP-193 body", () => {
  function sendRaw(bytes: Buffer): Promise<string> {
    const { port } = new URL(api.emulator.url);
    return new Promise((resolve) => {
      const socket = connect(Number(port), "127.0.0.1");
      let out = "";
      socket.on("data", (chunk) => (out += chunk.toString("utf8")));
      socket.on("close", () => resolve(out));
      socket.on("error", () => resolve(out));
      socket.setTimeout(3000, () => socket.destroy());
      socket.write(bytes);
    });
  }

  test(`${GARBAGE_RUNS} generated garbage requests`, async () => {
    const garbage = fc.oneof(
      fc
        .uint8Array({ minLength: 1, maxLength: 200 })
        .map((b) => Buffer.concat([Buffer.from(b), Buffer.from("\r\n\r\n")])),
      fc
        .constantFrom(
          "GET / HTTP/9.9\r\n\r\n",
          "GET /\u0000 HTTP/1.1\r\nHost: x\r\n\r\n",
          "\u0016\u0003\u0001\u0002\u0000\u0001\u0000\r\n\r\n",
          "POST /iam/v2beta1/groups HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
          "GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
          `GET / HTTP/1.1\r\nX: ${"a".repeat(70_000)}\r\n\r\n`,
        )
        .map((s) => Buffer.from(s, "latin1")),
    );
    await fc.assert(
      fc.asyncProperty(garbage, async (bytes) => {
        const answer = await sendRaw(bytes);
        const [head, ...rest] = answer.split("\r\n\r\n");
        expect(head).toMatch(/^HTTP\/1\.1 4\d\d /);
        const parsed = JSON.parse(rest.join("\r\n\r\n"));
        expect(parsed.code).toBe(3);
        expect(parsed.message).toMatch(/^Invalid argument: /);
        expect(parsed.details[0]["@type"]).toBe("type.googleapis.com/google.rpc.ErrorInfo");
      }),
      { seed: 12_45, numRuns: GARBAGE_RUNS },
    );
  }, 60_000);
});

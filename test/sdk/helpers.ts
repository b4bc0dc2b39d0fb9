/** Test helpers: a client wired to an undici MockAgent, and AIP-193 bodies from the spec's examples. */
import { MockAgent } from "undici";
import { PlatformClient, type PlatformClientOptions } from "../../sdk";

export const API = "https://api.test.example";
export const TOKEN = "static-secret-token-0123456789";
export const ORG = "0123456789abcdef0123456789abcdef01234567";
export const FOLDER = `${ORG}/fedcba9876543210`;
export const JSON_HEADERS = { "content-type": "application/json" };

export interface Harness {
  agent: MockAgent;
  api: ReturnType<MockAgent["get"]>;
  client: PlatformClient;
  sleeps: number[];
}

/** A client on a MockAgent with no real network, zero retry delay and recorded sleeps. */
export function harness(options: PlatformClientOptions = {}): Harness {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const sleeps: number[] = [];
  const client = new PlatformClient({
    apiUrl: API,
    token: TOKEN,
    env: {},
    retryBaseDelayMs: 0,
    dispatcher: agent,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  return { agent, api: agent.get(API), client, sleeps };
}

export function group(uid: string, name = "folder") {
  return {
    uid,
    name,
    description: "",
    resourceLimits: {},
    verified: false,
    createTime: "2026-01-02T03:04:05.678Z",
    updateTime: "2026-01-02T03:04:05.678Z",
  };
}

/** One request as the mock saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

type Interceptable = ReturnType<MockAgent["get"]>;

function normalizeHeaders(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(raw)) {
    for (let i = 0; i + 1 < raw.length; i += 2) out[String(raw[i]).toLowerCase()] = String(raw[i + 1]);
  } else if (raw && typeof raw === "object") {
    for (const [k, v] of Object.entries(raw)) out[k.toLowerCase()] = String(v);
  }
  return out;
}

/**
 * Answer the next `times` requests (any method and path) with `status` and `body`, recording each request.
 * `body` may be a function of the request number.
 */
export function answer(
  api: Interceptable,
  status: number,
  body: string | object | ((n: number) => unknown),
  options: { times?: number; headers?: Record<string, string>; seen?: SeenRequest[] } = {},
): SeenRequest[] {
  const seen = options.seen ?? [];
  api
    .intercept({ path: () => true, method: () => true })
    .reply(
      status,
      (opts) => {
        const text = typeof opts.body === "string" ? opts.body : undefined;
        seen.push({
          method: opts.method,
          path: opts.path,
          headers: normalizeHeaders(opts.headers),
          body: text === undefined ? undefined : JSON.parse(text),
        });
        const value = typeof body === "function" ? (body as (n: number) => unknown)(seen.length - 1) : body;
        return typeof value === "string" ? value : JSON.stringify(value);
      },
      { headers: { ...JSON_HEADERS, ...options.headers } },
    )
    .times(options.times ?? 1);
  return seen;
}

/** The AIP-193 body of the spec's code 3 example: BadRequest with a field violation on `name`. */
export const INVALID_NAME_BODY = {
  code: 3,
  message: "Invalid argument: name must match ^[a-z0-9 ._-]{1,}$",
  details: [
    {
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "INVALID_ARGUMENT",
      domain: "iam.test.example",
    },
    {
      "@type": "type.googleapis.com/google.rpc.BadRequest",
      fieldViolations: [{ field: "name", description: "name must match ^[a-z0-9 ._-]{1,}$" }],
    },
  ],
};

/** The AIP-193 body of the spec's code 9 example: PreconditionFailure RESOURCE_NOT_EMPTY. */
export const NOT_EMPTY_BODY = {
  code: 9,
  message: "Precondition failed: group has child resources",
  details: [
    {
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "FAILED_PRECONDITION",
      domain: "iam.test.example",
    },
    {
      "@type": "type.googleapis.com/google.rpc.PreconditionFailure",
      violations: [{ type: "RESOURCE_NOT_EMPTY", subject: ORG, description: "group still has 2 repos" }],
    },
  ],
};

export function aip193(code: number, message: string) {
  return { code, message, details: [] };
}

/** What `p` rejects with; fails the test when it resolves. */
export async function failure(p: PromiseLike<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected a failure");
}

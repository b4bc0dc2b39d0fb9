/** Wire-level helpers for the emulator contract tests: plain fetch, no SDK. */
import { startEmulator, type Emulator, type EmulatorOptions } from "../../emulator";

export interface WireResponse {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

export interface Api {
  emulator: Emulator;
  call(
    method: string,
    path: string,
    options?: { body?: unknown; raw?: string; token?: string | null; headers?: Record<string, string> },
  ): Promise<WireResponse>;
  get(path: string, token?: string | null): Promise<WireResponse>;
  post(path: string, body?: unknown, token?: string | null): Promise<WireResponse>;
  patch(path: string, body?: unknown, token?: string | null): Promise<WireResponse>;
  del(path: string, token?: string | null): Promise<WireResponse>;
}

export async function start(options: EmulatorOptions = {}): Promise<Api> {
  const emulator = await startEmulator(options);
  const call: Api["call"] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    const token = options.token === undefined ? emulator.token : options.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && headers["content-type"] === undefined)
      headers["content-type"] = "application/json";
    const response = await fetch(`${emulator.url}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
  return {
    emulator,
    call,
    get: (path, token) => call("GET", path, { token }),
    post: (path, body, token) => call("POST", path, { body, token }),
    patch: (path, body, token) => call("PATCH", path, { body, token }),
    del: (path, token) => call("DELETE", path, { token }),
  };
}

/** An emulator started for a file's tests, and the uid of its organization. */
export async function startInOrg(options: EmulatorOptions = {}): Promise<{ api: Api; org: string }> {
  const api = await start(options);
  return { api, org: api.emulator.orgUid };
}

/**
 * Starts an emulator before the calling file's (or describe block's) tests and closes it after; `set` receives it
 * with the uid of its organization and of its built-in owner role.
 */
export function useInOrg(set: (started: { api: Api; org: string; ownerRole: string }) => void): void {
  let api: Api | undefined;
  beforeAll(async () => {
    const started = await startInOrg();
    api = started.api;
    const ownerRole = (await api.get("/iam/v2beta1/roles?name=owner")).body.roles[0].uid as string;
    set({ ...started, ownerRole });
  });
  afterAll(() => api?.emulator.close());
}

/** The ErrorInfo, BadRequest and PreconditionFailure details of an AIP-193 body. */
export function details(body: { details?: { "@type": string }[] }) {
  const find = (suffix: string) =>
    body.details?.find((d) => d["@type"].endsWith(suffix)) as Record<string, unknown> | undefined;
  return {
    errorInfo: find("ErrorInfo") as { reason: string; domain: string } | undefined,
    fieldViolations: (find("BadRequest")?.fieldViolations ?? []) as { field: string; description: string }[],
    violations: (find("PreconditionFailure")?.violations ?? []) as { type: string; description: string }[],
  };
}

/** A root uid (organization, root-level user) as the real service mints them: 40 hex. */
export const ROOT_UID = /^[0-9a-f]{40}$/;
export const RFC3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const enc = encodeURIComponent;

/** The advisory ids a listing of advisories with `query` answers, sorted; the listing must succeed. */
export async function advisoryIds(api: Api, query: string): Promise<string[]> {
  const response = await api.get(`/vulnerabilities/v2beta1/advisories?${query}`);
  expect(response.status).toBe(200);
  return response.body.advisories.map((a: { advisoryId: string }) => a.advisoryId).sort();
}

/** Control endpoints under the one reserved prefix `/_emulator/` (loopback only, no auth). */
import { invalidArgument } from "../errors";
import type { FaultRule } from "../faults";
import type { MintOptions } from "../oidc";
import type { LoggedRequest } from "../service";
import type { Route } from "./types";

export const CONTROL_PREFIX = "/_emulator/";

export interface Control {
  reset(): void;
  seed(data: unknown): unknown;
  mintIdToken(options: MintOptions): Promise<string>;
  advance(ms: number): void;
  requestLog(): LoggedRequest[];
  clearRequestLog(): void;
  addFaults(rules: FaultRule[]): void;
  clearFaults(): void;
  listFaults(): FaultRule[];
  createUser(name: string): { uid: string; token: string };
}

function object(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw invalidArgument("the request body must be a JSON object");
  return body as Record<string, unknown>;
}

export function controlRoutes(control: Control): Route[] {
  const route = (method: Route["method"], path: string, handler: Route["handler"]): Route => ({
    method,
    url: `/_emulator/${path}`,
    auth: false,
    handler,
  });
  return [
    route("GET", "health", () => ({ status: "ok" })),
    route("POST", "reset", () => (control.reset(), {})),
    route("POST", "seed", (ctx) => control.seed(ctx.body)),
    route("POST", "oidc/mint", async (ctx) => {
      const body = object(ctx.body);
      if (typeof body.subject !== "string" || body.subject === "")
        throw invalidArgument("subject is required", [
          { field: "subject", description: "subject is required" },
        ]);
      const options: MintOptions = { subject: body.subject };
      if (typeof body.audience === "string" || Array.isArray(body.audience))
        options.audience = body.audience as string | string[];
      if (typeof body.expiresInSeconds === "number") options.expiresInSeconds = body.expiresInSeconds;
      if (body.claims !== null && typeof body.claims === "object")
        options.claims = body.claims as Record<string, unknown>;
      return { idToken: await control.mintIdToken(options) };
    }),
    route("POST", "clock/advance", (ctx) => {
      const ms = object(ctx.body).ms;
      if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0)
        throw invalidArgument("ms must be a non-negative number", [
          { field: "ms", description: "must be a non-negative number" },
        ]);
      control.advance(ms);
      return { now: ctx.svc.now() };
    }),
    route("GET", "requests", () => ({ requests: control.requestLog() })),
    route("DELETE", "requests", () => (control.clearRequestLog(), {})),
    route("GET", "faults", () => ({ faults: control.listFaults() })),
    route("POST", "faults", (ctx) => {
      const body = ctx.body;
      const rules = Array.isArray(body)
        ? body
        : Array.isArray((body as { faults?: unknown } | undefined)?.faults)
          ? (body as { faults: unknown[] }).faults
          : [body];
      try {
        control.addFaults(rules as FaultRule[]);
      } catch (error) {
        throw invalidArgument(`invalid fault rule: ${(error as Error).message}`);
      }
      return { faults: control.listFaults() };
    }),
    route("DELETE", "faults", () => (control.clearFaults(), {})),
    route("POST", "users", (ctx) => {
      const name = ctx.body === undefined ? "user" : object(ctx.body).name;
      if (typeof name !== "string" || name === "") throw invalidArgument("name must be a non-empty string");
      return control.createUser(name);
    }),
  ];
}

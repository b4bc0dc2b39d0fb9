/**
 * The handlers of the control endpoints under the one reserved prefix `/_emulator/` (loopback scripts only, no
 * auth; server.ts refuses what a browser page could send). Every member is bounded and named when refused (code 3); a request that fails
 * changes nothing.
 */
import { MAX_TIME_MS, boundedInteger, stringProblem } from "../bounds";
import { badField, invalidArgument } from "../errors";
import { FaultRuleError, type FaultRule, type ListedFault } from "../faults";
import type { MintOptions } from "../oidc";
import type { LoggedRequest } from "../service";
import { staged, type RouteContext } from "./types";

/** The answer a `prepare` already made (a route whose only work is awaited and writes nothing). */
const answerPrepared = (_ctx: RouteContext, prepared: unknown): unknown => prepared;

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
  listFaults(): ListedFault[];
  /** Throws a FaultRuleError when a rule is invalid (adds nothing). */
  validate(rule: unknown): void;
  createUser(name: string): { uid: string; token: string };
}

function object(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw badField("body", "the request body must be a JSON object");
  return body as Record<string, unknown>;
}

/** Members a control body may hold; anything else is named and refused, never silently dropped. */
function only(body: Record<string, unknown>, members: string[]): void {
  for (const key of Object.keys(body))
    if (!members.includes(key))
      throw badField(key, `${key} is not a member of this request (${members.join(", ")})`);
}

/** Ten years, either way: enough for any token test, far from Date's range. */
export const MAX_MINT_SECONDS = 10 * 365 * 24 * 3600;
/** A hundred years per advance. */
export const MAX_ADVANCE_MS = 100 * 365 * 24 * 3600 * 1000;

/** The control endpoints' handlers, over the emulator's `Control`; ./table.ts names their methods and paths. */
export function controlHandlers(control: Control) {
  return {
    health: (): unknown => ({ status: "ok" }),
    reset: (): unknown => (control.reset(), {}),
    seed: (ctx: RouteContext): unknown => control.seed(ctx.body),
    // Signing is awaited: done before the (empty) transaction, which only answers.
    mint: staged(async (ctx: RouteContext): Promise<unknown> => {
      const body = object(ctx.body);
      only(body, ["subject", "audience", "expiresInSeconds", "claims"]);
      if (typeof body.subject !== "string" || body.subject === "")
        throw badField("subject", "subject is required");
      const options: MintOptions = { subject: body.subject };
      if (body.audience !== undefined) {
        const audiences = Array.isArray(body.audience) ? body.audience : [body.audience];
        if (audiences.length === 0 || audiences.some((a) => typeof a !== "string" || a === ""))
          throw badField("audience", "audience must be a non-empty string or a non-empty array of them");
        options.audience = body.audience as string | string[];
      }
      if (body.expiresInSeconds !== undefined)
        options.expiresInSeconds = boundedInteger(
          body.expiresInSeconds,
          "expiresInSeconds",
          -MAX_MINT_SECONDS,
          MAX_MINT_SECONDS,
        );
      if (body.claims !== undefined) {
        if (body.claims === null || typeof body.claims !== "object" || Array.isArray(body.claims))
          throw badField("claims", "claims must be an object");
        options.claims = body.claims as Record<string, unknown>;
      }
      return { idToken: await control.mintIdToken(options) };
    }, answerPrepared),
    advanceClock: (ctx: RouteContext): unknown => {
      const body = object(ctx.body);
      only(body, ["ms"]);
      const ms = boundedInteger(body.ms, "ms", 0, MAX_ADVANCE_MS);
      if (ctx.svc.clock.now().getTime() + ms > MAX_TIME_MS)
        throw badField("ms", "ms would move the clock past the year 9999");
      control.advance(ms);
      return { now: ctx.svc.now() };
    },
    requests: (): unknown => ({ requests: control.requestLog() }),
    clearRequests: (): unknown => (control.clearRequestLog(), {}),
    faults: (): unknown => ({ faults: control.listFaults() }),
    addFaults: (ctx: RouteContext): unknown => {
      const body = ctx.body;
      const wrapped = Array.isArray((body as { faults?: unknown } | undefined)?.faults);
      const rules = Array.isArray(body) ? body : wrapped ? (body as { faults: unknown[] }).faults : [body];
      const prefix = Array.isArray(body) ? "" : wrapped ? "faults" : undefined;
      // All rules are checked before any is added: a list with one bad rule adds none.
      for (const [index, rule] of rules.entries()) {
        try {
          control.validate(rule);
        } catch (error) {
          if (!(error instanceof FaultRuleError)) throw error;
          const at = prefix === undefined ? "" : `${prefix}[${index}]`;
          const field = [at, error.field].filter((p) => p !== "").join(".") || "body";
          throw invalidArgument(`invalid fault rule: ${error.message}`, [
            { field, description: error.message },
          ]);
        }
      }
      control.addFaults(rules as FaultRule[]);
      return { faults: control.listFaults() };
    },
    clearFaults: (): unknown => (control.clearFaults(), {}),
    createUser: (ctx: RouteContext): unknown => {
      const body = ctx.body === undefined ? {} : object(ctx.body);
      only(body, ["name"]);
      const name = body.name === undefined ? "user" : body.name;
      if (typeof name !== "string" || name === "") throw badField("name", "name must be a non-empty string");
      const problem = stringProblem(name, "name");
      if (problem !== undefined) throw badField("name", problem);
      return control.createUser(name);
    },
  };
}

/**
 * What the request pipeline (./core.ts) sends: one HTTP call, fully described. Its own module so that what builds a
 * request (./token-exchange.ts, the exchange's call) needs nothing of the pipeline that sends it.
 */
import type { z } from "zod";

export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

/** A query value; arrays are sent as repeated parameters, undefined values are left out. */
export type QueryValue = string | number | boolean | readonly string[] | undefined;

/** One call: where, how, with which credential, and the schema of a 2xx body (undefined: the body is ignored). */
export interface SendSpec {
  baseUrl: string;
  method: HttpMethod;
  path: string;
  query?: Record<string, QueryValue> | undefined;
  body?: unknown;
  authorization: string | undefined;
  schema: z.ZodType | undefined;
}

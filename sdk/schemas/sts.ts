/**
 * Token exchange at {authUrl}/sts/exchange: an OIDC token in, an API token (valid one hour) out. OpenAPI
 * platform.oidc.RawToken (./openapi.generated).
 */
import { z } from "zod";
import { RawToken } from "./openapi.generated";

export const ExchangeResponse = RawToken.extend({ token: z.string().min(1) });
export type ExchangeResponse = z.infer<typeof ExchangeResponse>;

/** Token exchange at {authUrl}/sts/exchange: an OIDC token in, an API token (valid one hour) out. */
import { z } from "zod";

export const ExchangeResponse = z.object({
  token: z.string().min(1),
  expiry: z.string().optional(),
  refreshToken: z.string().optional(),
});
export type ExchangeResponse = z.infer<typeof ExchangeResponse>;

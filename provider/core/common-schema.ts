/**
 * Inputs every resource takes besides its API fields: which credentials to use and whether to take over
 * an existing object. Neither is sent to the API.
 *
 * May import: zod only.
 */
import { z } from "zod";

export const CommonInputSchema = z.object({
  profile: z
    .string()
    .optional()
    .describe(
      "The credentials profile (a key of platform:profiles) to manage this object with; default: the stack's.",
    ),
  adopt: z
    .boolean()
    .optional()
    .describe(
      "Take over an existing object with the same name under the same parent instead of creating a duplicate, then update it to match.",
    ),
});

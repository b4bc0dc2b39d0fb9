/**
 * Inputs that are never sent to the API: which credentials to use (every resource), and whether to take over an
 * existing object (only the resources whose create can find one: declared with `adoptInput` where it has an effect).
 */
import { z } from "zod";

/** Inputs every resource takes. */
export const CommonInputSchema = z.object({
  profile: z
    .string()
    .optional()
    .describe(
      "The credentials profile (a key of platform:profiles) to manage this object with; default: the stack's.",
    ),
});

/** `adopt`'s doc where a resource does not say more. */
export const ADOPT_DOC =
  "Take over an existing object with the same name under the same parent instead of creating a duplicate, then update it to match.";

/**
 * Every capability name the API knows, which a custom role may grant: the OpenAPI enum
 * platform.capabilities.Capability (./openapi.generated), without UNKNOWN. One list for both sides: the emulator
 * refuses any other name, and the provider checks roles against it at preview, so a typo fails before any API call.
 *
 * `Capability` is the same list as a type: every capability our code names (a literal, a parameter asking about one)
 * is typed through it, so a misspelt one fails `npm run typecheck`. What a role read from the API holds stays
 * `string`: data, which may name a capability newer than our OpenAPI.
 */
import { CapabilityValues } from "./openapi.generated";

/** A capability the API knows, e.g. `CAP_IAM_GROUPS_LIST`. */
export type Capability = Exclude<(typeof CapabilityValues)[number], "UNKNOWN">;

/** The stem of a collection's capabilities: `CAP_IAM_ROLE_BINDINGS` of `CAP_IAM_ROLE_BINDINGS_LIST`, ... */
export type CapabilityStem = StemOf<Capability>;
type StemOf<C> = C extends `${infer Stem}_LIST` ? Stem : never;

export const CAPABILITIES: readonly Capability[] = CapabilityValues.filter(
  (name): name is Capability => name !== "UNKNOWN",
);

export const CAPABILITY_SET: ReadonlySet<string> = new Set(CAPABILITIES);

/** Whether `name` (from a request, a file, a role read from the API) is a capability the API knows. */
export function isCapability(name: string): name is Capability {
  return CAPABILITY_SET.has(name);
}

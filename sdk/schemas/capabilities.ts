/**
 * Every capability name the API knows, which a custom role may grant: the OpenAPI enum
 * platform.capabilities.Capability (./openapi.generated), without UNKNOWN. One list for both sides: the emulator
 * refuses any other name, and the provider checks roles against it at preview, so a typo fails before any API call.
 *
 * May import: ./openapi.generated.
 */
import { CapabilityValues } from "./openapi.generated";

export const CAPABILITIES: readonly string[] = CapabilityValues.filter((name) => name !== "UNKNOWN");

export const CAPABILITY_SET: ReadonlySet<string> = new Set(CAPABILITIES);

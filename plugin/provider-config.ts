/**
 * The provider's own configuration in the native plugin: the `platform:*` stack config of the default provider,
 * or the inputs of an explicit `new pulumi.ProviderResource("platform", name, {...})`, arrives as the provider's
 * inputs, keys without the `platform:` prefix. It is read with the same rule as the dynamic path
 * (provider/core/config: profile keys > config > PLATFORM_* env > defaults), by handing provider/core/client a
 * lookup of the `platform:` keys.
 */
import { CONFIG_KEYS, SECRET_SETTINGS, parseProfiles, type ConfigLookup } from "../provider/core/config";
import type { Props } from "./values";

/** The provider inputs (config keys without the namespace). */
export const CONFIG_INPUTS = Object.keys(CONFIG_KEYS) as (keyof typeof CONFIG_KEYS)[];

/** Inputs that carry a credential: always stored as secrets, whatever the program gave. */
export const SECRET_CONFIG_INPUTS: readonly string[] = SECRET_SETTINGS;

/** A config value as the lookup returns it: strings as they are, structured values (profiles) as JSON. */
function asConfigString(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/** The `platform:<key>` lookup over provider inputs. */
export function lookupOf(inputs: Props): ConfigLookup {
  return (key) => {
    const bare = key.startsWith("platform:") ? key.slice("platform:".length) : key;
    return asConfigString(inputs[bare]);
  };
}

/** Inputs from the deprecated `variables` map (`platform:apiUrl` → `apiUrl`), for engines that send only it. */
export function inputsOfVariables(variables: Iterable<[string, string]>): Props {
  const inputs: Props = {};
  for (const [key, value] of variables) {
    if (key.startsWith("platform:")) inputs[key.slice("platform:".length)] = value;
  }
  return inputs;
}

/** CheckConfig's failures: each names the input and the rule. Unknown values (a preview) are not checked. */
export function configFailures(
  inputs: Props,
  isUnknown: (value: unknown) => boolean,
): { property: string; reason: string }[] {
  const failures: { property: string; reason: string }[] = [];
  for (const key of CONFIG_INPUTS) {
    const value = inputs[key];
    if (value === undefined || value === null || isUnknown(value)) continue;
    if (key === "profiles") {
      try {
        parseProfiles(value);
      } catch (err) {
        failures.push({ property: key, reason: (err as Error).message });
      }
    } else if (typeof value !== "string") {
      failures.push({ property: key, reason: `must be a string, not a ${typeof value}` });
    }
  }
  return failures;
}

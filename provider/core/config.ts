/**
 * Where the provider's credentials and endpoints come from, resolved in ONE place.
 *
 * Precedence, written once here: profile keys > stack config > PLATFORM_* env > defaults. This module
 * merges the first two (the Pulumi side); the SDK's own rule (explicit option, then env, then default,
 * sdk/config.ts) supplies the last two, so nothing is decided twice.
 *
 * Two callers feed it: dynamic providers (from the `configure` request, in the provider process) and
 * data sources (from the program's `platform:*` config, in the program process). Neither stores the
 * result anywhere Pulumi serializes.
 */
import { ConfigurationError, ENV_VARS, type PlatformClientOptions } from "../../sdk";

/**
 * Every setting of the `platform` namespace, declared once: its doc (schema.json's config and provider sections,
 * every SDK, the registry docs), its type there, and whether it is a credential, always kept secret.
 */
export const CONFIG_SETTINGS = {
  apiUrl: { doc: "The API base URL. Env PLATFORM_API_URL. Required." },
  authUrl: { doc: "Where token exchange lives. Env PLATFORM_AUTH_URL. Default: apiUrl's origin." },
  token: { doc: "A static API token. Env PLATFORM_TOKEN.", secret: true },
  identity: { doc: "The uid of an identity to assume through token exchange. Env PLATFORM_IDENTITY." },
  identityToken: {
    doc: "The OIDC token to exchange, as a string. Env PLATFORM_IDENTITY_TOKEN.",
    secret: true,
  },
  identityTokenFile: {
    doc: "A file holding the OIDC token to exchange, re-read at each exchange. Env PLATFORM_IDENTITY_TOKEN_FILE.",
  },
  propagationWindowMs: {
    doc:
      "How long (ms) after this provider created a group, role or binding a NotFound or PermissionDenied naming it " +
      "is retried as propagation. Env PLATFORM_PROPAGATION_WINDOW_MS. Default 60000; 0 turns it off.",
  },
  preflight: {
    doc:
      "What a preview does when the identity the provider runs as lacks a capability a planned operation needs " +
      '(docs/guide.md, "Preflight"): "error" (the default) fails the preview before any write, "warn" prints the ' +
      'missing capabilities and goes on, "off" skips the check (for a service whose rules differ).',
    stackOnly: true,
  },
  profiles: {
    doc:
      'Named credential sets, e.g. {"orgb": {"apiUrl": "...", "token": "..."}}; a resource or data source picks ' +
      "one with `profile`. Profile keys override stack keys.",
    secret: true,
  },
} as const satisfies Record<string, { doc: string; secret?: boolean; stackOnly?: boolean }>;

export type ConfigName = keyof typeof CONFIG_SETTINGS;

/** The settings a profile may carry: every one but `profiles` and those of the stack alone (`stackOnly`). */
export const PROFILE_SETTINGS = (Object.keys(CONFIG_SETTINGS) as ConfigName[]).filter(
  (name) => name !== "profiles" && (CONFIG_SETTINGS[name] as { stackOnly?: boolean }).stackOnly !== true,
);

/** The stack-config keys of the `platform` namespace. */
export const CONFIG_KEYS = Object.fromEntries(
  Object.keys(CONFIG_SETTINGS).map((name) => [name, `platform:${name}`]),
) as { readonly [N in ConfigName]: `platform:${N}` };

/** The settings that are credentials: always stored as secrets, whatever the program gave. */
export const SECRET_SETTINGS = (Object.keys(CONFIG_SETTINGS) as ConfigName[]).filter(
  (name) => (CONFIG_SETTINGS[name] as { secret?: boolean }).secret === true,
);

/** The connection settings a profile or the stack config may carry (every setting but profiles and preflight). */
export type ConnectionSettings = { [N in SettingName]?: string | undefined };

/** The settings that say how to reach the API (a profile may override each); preflight is the stack's alone. */
export type SettingName = Exclude<ConfigName, "profiles" | "preflight">;

const SETTING_NAMES = (Object.keys(CONFIG_SETTINGS) as ConfigName[]).filter(
  (name): name is SettingName => name !== "profiles" && name !== "preflight",
);

/** `platform:preflight`'s values; "error" when unset. */
export const PREFLIGHT_MODES = ["error", "warn", "off"] as const;
export type PreflightMode = (typeof PREFLIGHT_MODES)[number];

/** platform:preflight as a mode: unset is "error"; anything else but the three values fails, naming the key. */
export function preflightMode(value: string | undefined): PreflightMode {
  const trimmed = value?.trim() ?? "";
  if (trimmed === "") return "error";
  const mode = PREFLIGHT_MODES.find((m) => m === trimmed);
  if (mode !== undefined) return mode;
  throw new ConfigurationError(
    `${CONFIG_KEYS.preflight} must be one of ${PREFLIGHT_MODES.join(", ")}, got ${JSON.stringify(value)}`,
  );
}

/** Env variables that carry a credential; dropped when config names a credential of its own. */
const CREDENTIAL_ENV = [
  "PLATFORM_TOKEN",
  "PLATFORM_IDENTITY",
  "PLATFORM_IDENTITY_TOKEN",
  "PLATFORM_IDENTITY_TOKEN_FILE",
];

/** Reads one config key; both the dynamic provider's Config and pulumi.runtime.getConfig fit. */
export type ConfigLookup = (key: string) => string | undefined;

/** The settings of the stack config and of every profile, parsed from raw config values. */
export interface ProviderSettings {
  stack: ConnectionSettings;
  profiles: Record<string, ConnectionSettings>;
  /** platform:preflight as given (unset: absent). */
  preflight?: string;
}

function blankToUndefined(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

function pickSettings(source: Record<string, unknown>): ConnectionSettings {
  const settings: ConnectionSettings = {};
  for (const name of SETTING_NAMES) {
    const value = blankToUndefined(source[name]);
    if (value !== undefined) settings[name] = value;
  }
  return settings;
}

/**
 * `platform:profiles` arrives as a JSON string (structured config) or, from some callers, an object.
 * A malformed value fails loudly: silently ignoring it would send requests with the wrong credentials.
 */
export function parseProfiles(raw: unknown): Record<string, ConnectionSettings> {
  if (raw === undefined || raw === null || raw === "") return {};
  let value: unknown = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch {
      throw new Error(
        `${CONFIG_KEYS.profiles} must be a JSON object like {"orgb": {"apiUrl": "...", "token": "..."}}`,
      );
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`${CONFIG_KEYS.profiles} must be an object keyed by profile name`);
  }
  // A profile's name is data: built with fromEntries (own members, `__proto__` included), looked up with profileOf.
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([name, body]) => {
      if (typeof body !== "object" || body === null) {
        throw new Error(`${CONFIG_KEYS.profiles}.${name} must be an object with apiUrl, token, ...`);
      }
      return [name, pickSettings(body as Record<string, unknown>)];
    }),
  );
}

/** Reads the stack config and profiles through any config lookup. */
export function readProviderSettings(lookup: ConfigLookup): ProviderSettings {
  const stack: ConnectionSettings = {};
  for (const name of SETTING_NAMES) {
    const value = blankToUndefined(lookup(CONFIG_KEYS[name]));
    if (value !== undefined) stack[name] = value;
  }
  const preflight = blankToUndefined(lookup(CONFIG_KEYS.preflight));
  return {
    stack,
    profiles: parseProfiles(lookup(CONFIG_KEYS.profiles)),
    ...(preflight === undefined ? {} : { preflight }),
  };
}

/** The profile of that name, if configured (its own member: `constructor` is no profile unless configured). */
function profileOf(settings: ProviderSettings, profile: string): ConnectionSettings | undefined {
  return Object.hasOwn(settings.profiles, profile) ? settings.profiles[profile] : undefined;
}

/**
 * The client options for one profile (undefined = the stack's default credentials).
 *
 * Profile keys override stack keys one by one. When the merged config names a credential (a token or an
 * identity), credential env variables are hidden from the SDK: an env PLATFORM_IDENTITY must not silently
 * turn a profile's static token into a token exchange. Endpoint env variables still apply.
 */
export function resolveClientOptions(
  settings: ProviderSettings,
  profile: string | undefined,
  env: Record<string, string | undefined> = process.env,
): PlatformClientOptions {
  let merged: ConnectionSettings = { ...settings.stack };
  if (profile !== undefined && profile !== "") {
    const profileSettings = profileOf(settings, profile);
    if (profileSettings === undefined) {
      const known = Object.keys(settings.profiles);
      throw new ConfigurationError(
        `profile "${profile}" is not configured: set it with ` +
          `pulumi config set --secret --path '${CONFIG_KEYS.profiles}.${profile}.token' <token> ` +
          `(and '${CONFIG_KEYS.profiles}.${profile}.apiUrl')` +
          (known.length > 0 ? `; configured profiles: ${known.join(", ")}` : ""),
      );
    }
    merged = { ...merged, ...profileSettings };
    // A profile that brings its own credential replaces the stack's credential entirely.
    if (profileSettings.token !== undefined || profileSettings.identity !== undefined) {
      merged.token = profileSettings.token;
      merged.identity = profileSettings.identity;
      merged.identityToken = profileSettings.identityToken;
      merged.identityTokenFile = profileSettings.identityTokenFile;
    }
  }
  const options: PlatformClientOptions = {};
  for (const name of SETTING_NAMES) {
    const value = merged[name];
    if (value === undefined) continue;
    if (name === "propagationWindowMs") {
      const fromProfile =
        profile !== undefined && profileOf(settings, profile)?.propagationWindowMs !== undefined;
      options[name] = windowMs(value, fromProfile ? profile : undefined);
    } else options[name] = value;
  }
  const configNamesCredential = merged.token !== undefined || merged.identity !== undefined;
  const effectiveEnv: Record<string, string | undefined> = { ...env };
  if (configNamesCredential) for (const name of CREDENTIAL_ENV) delete effectiveEnv[name];
  options.env = effectiveEnv;
  return options;
}

/** platform:propagationWindowMs as a number: a whole number of ms, else an error naming the key. */
function windowMs(value: string, profile: string | undefined): number {
  if (/^\s*\d+\s*$/.test(value) && Number.isSafeInteger(Number(value))) return Number(value);
  const key = profile
    ? `${CONFIG_KEYS.profiles}.${profile}.propagationWindowMs`
    : CONFIG_KEYS.propagationWindowMs;
  throw new ConfigurationError(
    `${key} must be a whole number of milliseconds (0 turns retries off), got ${JSON.stringify(value)}`,
  );
}

/**
 * How the user spelled each setting for `profile`: the profile's key, the stack-config key, or the env variable,
 * whichever supplied it (by the precedence above); a setting nobody supplied is named both ways, config first.
 * Error messages use these, so they speak of what the user actually configured.
 */
export function settingTerms(
  settings: ProviderSettings,
  profile: string | undefined,
  env: Record<string, string | undefined> = process.env,
): Record<SettingName, string> {
  const terms = {} as Record<SettingName, string>;
  const profileSettings = profile ? profileOf(settings, profile) : undefined;
  for (const name of SETTING_NAMES) {
    const fromEnv = blankToUndefined(env[ENV_VARS[name]]) !== undefined;
    if (profileSettings?.[name] !== undefined) terms[name] = `${CONFIG_KEYS.profiles}.${profile}.${name}`;
    else if (settings.stack[name] !== undefined) terms[name] = CONFIG_KEYS[name];
    else if (fromEnv) terms[name] = ENV_VARS[name];
    else terms[name] = `${CONFIG_KEYS[name]} (or ${ENV_VARS[name]})`;
  }
  return terms;
}

/** Every secret value the settings hold, so error text can be scrubbed of them. */
export function secretValues(settings: ProviderSettings): string[] {
  const all = [settings.stack, ...Object.values(settings.profiles)];
  return all
    .flatMap((s) => [s.token, s.identityToken])
    .filter((v): v is string => v !== undefined && v.length >= 4);
}

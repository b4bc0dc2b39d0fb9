/**
 * One PlatformClient per profile, built lazily inside provider methods and cached in this module's scope.
 *
 * This module lives in the provider process (or the program process for data sources). Its state is never
 * captured by a serialized provider: providers reach it through `require`, so Pulumi stores a reference
 * to the installed package, not these clients, sockets or credentials.
 */
import { PlatformClient } from "../../sdk";
import { resolveConfig } from "../../sdk/config";
import {
  ConfigLookup,
  ProviderSettings,
  readProviderSettings,
  resolveClientOptions,
  settingTerms,
  type SettingName,
} from "./config";

const EMPTY_SETTINGS: ProviderSettings = { stack: {}, profiles: {} };

let settings: ProviderSettings = EMPTY_SETTINGS;
const clients = new Map<string, PlatformClient>();

/** Called from each provider's `configure`: remembers the stack config and drops clients built from older config. */
export async function configureFromLookup(lookup: ConfigLookup): Promise<void> {
  const next = readProviderSettings(lookup);
  if (JSON.stringify(next) !== JSON.stringify(settings)) {
    settings = next;
    await closeClients();
  }
}

/** The settings the provider process was configured with (for scrubbing secrets out of messages). */
export function currentSettings(): ProviderSettings {
  return settings;
}

/** How the user spelled each connection setting of `profile` (for error messages). */
export function termsFor(profile: string | undefined): Record<SettingName, string> {
  return settingTerms(settings, profile === "" ? undefined : profile);
}

/** The client for a profile (undefined or "" = the default credentials), built on first use. */
export function clientFor(profile: string | undefined): PlatformClient {
  const key = profile ?? "";
  let client = clients.get(key);
  if (client === undefined) {
    client = new PlatformClient(resolveClientOptions(settings, profile === "" ? undefined : profile));
    clients.set(key, client);
  }
  return client;
}

/** Closes every cached client (tests, and configure with new settings). */
export async function closeClients(): Promise<void> {
  const open = [...clients.values()];
  clients.clear();
  await Promise.all(open.map((c) => c.close().catch(() => undefined)));
}

/** The `sub` claim of a JWT, read without verifying it (only to recognise our own identity), or undefined. */
export function subjectOf(token: string): string | undefined {
  const payload = token.split(".")[1];
  if (payload === undefined) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { sub?: unknown };
    return typeof claims.sub === "string" && claims.sub !== "" ? claims.sub : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The identity the provider acts as for `profile`: the identity it assumes through token exchange, or the subject
 * of its static API token (the service's API tokens are JWTs whose `sub` is the identity's uid). Undefined when
 * neither is known (an opaque token): the lock-out guard cannot recognise the provider's own bindings then, and
 * the preflight is skipped.
 */
export function callerIdentity(profile: string | undefined): string | undefined {
  try {
    const config = resolveConfig(resolveClientOptions(settings, profile === "" ? undefined : profile));
    return config.credentials.kind === "exchange"
      ? config.credentials.identity
      : subjectOf(config.credentials.token);
  } catch {
    return undefined;
  }
}

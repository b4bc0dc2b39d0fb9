/**
 * The client data sources use. Data sources run in the program process, not the provider process, so
 * they read the program's `platform:*` stack config (pulumi.runtime.getConfig, which returns secrets as
 * plain strings without the "use getSecret" warning) and the same env, with the same precedence as
 * providers (./config). The client lives for one call and is closed after it; nothing is stored.
 *
 * A process that is not a Pulumi program (the native provider plugin, plugin/) has no program config: it hands
 * its own configured settings in through `setSettingsSource`, and the data sources then use those instead.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { PlatformClient } from "../../sdk";
import { parseKeepingKeys } from "../../sdk/schemas/own-keys";
import {
  readProviderSettings,
  resolveClientOptions,
  secretValues,
  settingTerms,
  type ProviderSettings,
} from "./config";
import { Attempt, translateError } from "./errors";

/** Page size of every data-source list: the API's maximum. */
export const DATA_SOURCE_PAGE_SIZE = 200;

let settingsSource: (() => ProviderSettings) | undefined;

/**
 * Where data sources take their settings from: `source()` at each call instead of the program's `platform:*`
 * config (undefined restores that). The native plugin sets it once, to the settings its Configure received.
 */
export function setSettingsSource(source: (() => ProviderSettings) | undefined): void {
  settingsSource = source;
}

/** Runs `fn` with a client for `profile` built from the program's config; errors come back translated. */
export async function withProgramClient<T>(
  profile: string | undefined,
  attempt: Omit<Attempt, "profile">,
  fn: (client: PlatformClient) => Promise<T>,
): Promise<T> {
  const settings = settingsSource?.() ?? readProviderSettings((key) => pulumi.runtime.getConfig(key));
  let client: PlatformClient | undefined;
  try {
    client = new PlatformClient(resolveClientOptions(settings, profile));
    return await fn(client);
  } catch (err) {
    throw translateError(
      err,
      { ...attempt, profile },
      secretValues(settings),
      settingTerms(settings, profile),
    );
  } finally {
    await client?.close();
  }
}

/** Collects every item of a paged list (for-await over the SDK's pages). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Common data-source argument: which credentials to use. */
export const ProfileArgsSchema = z.object({
  profile: z.string().optional().describe("A key of platform:profiles; default: the stack's credentials."),
});

/** Validates data-source arguments before any API call; the error names the field and the rule. */
export function parseArgs<S extends z.ZodType>(dataSource: string, schema: S, args: unknown): z.infer<S> {
  const result = parseKeepingKeys(schema, args ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) =>
    i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message,
  );
  throw argumentError(dataSource, problems.join("; "));
}

/** Fails a data-source call with a message naming the argument, before any API call. */
export function argumentError(dataSource: string, message: string): Error {
  const err = new Error(`${dataSource}: ${message}`);
  err.name = "PlatformArgumentError";
  return err;
}

/** What a by-name lookup was looking for, for its messages. */
export interface NameLookup {
  kind: string; // "group"
  kinds: string; // "groups"
  name: string | undefined;
  where: string; // "in organization <uid>"
  hint?: string; // what to pass instead when several match; default "pass uid"
}

/**
 * The single object a by-name lookup found. None, or several (names are not unique under a parent), is an
 * argument error that names the candidates' uids, so the user can pass the one they mean.
 */
export function theOnlyMatch<T extends { uid: string }>(
  dataSource: string,
  matches: T[],
  lookup: NameLookup,
): T {
  const [first, ...rest] = matches;
  if (first === undefined) {
    throw argumentError(dataSource, `no ${lookup.kind} named "${lookup.name}" ${lookup.where}`);
  }
  if (rest.length > 0) {
    const uids = matches.map((m) => m.uid).join(", ");
    throw argumentError(
      dataSource,
      `${matches.length} ${lookup.kinds} are named "${lookup.name}" ${lookup.where} (${uids}): ` +
        (lookup.hint ?? "pass uid"),
    );
  }
  return first;
}

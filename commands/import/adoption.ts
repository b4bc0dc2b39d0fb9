/**
 * State-first adoption: the Pulumi state that `pulumi import --file` would record for an import document, written
 * beside the document (`platform-import ... --state-out FILE`) and loaded into a stack by `platform-import load`
 * (./load) in one `pulumi stack import`, instead of one engine step per resource, each of which rewrites the whole
 * checkpoint on file backends (quadratic in the number of resources).
 *
 * Each resource's state comes from the provider's own read, as the plugin answers `pulumi import`: the resource's
 * operations (`read` by id with no state: its description's read-back, provider/core/wire) give the outputs and
 * the inputs, and the inputs are those of an import (no empty values), with the declared secrets marked. Nothing
 * here maps a field. The engine records those read inputs as they are (it only warns on check failures), with the
 * document's name and parent, the default provider of the package, and `protect: true`; ./load builds exactly
 * that record.
 *
 * The file also carries a fingerprint of every object the listing found under the scope (a group's tree), taken
 * before the reads: ./load lists the scope again just before it loads and refuses if anything under it changed.
 *
 * Secrets never reach the file: the API returns no secret value for any resource of this package (an identity
 * provider's client secret is write-only, an invite's code is shown once), and a read that returned one is refused
 * rather than written in plain text.
 */
import { createHash } from "node:crypto";
import { ENV_VARS, SDK_VERSION, type PlatformClient } from "../../sdk";
import { RESOURCES } from "../../provider/catalogue";
import { closeClients, configureFromLookup } from "../../provider/core/client";
import { CONFIG_KEYS, CONFIG_SETTINGS, type ConfigName } from "../../provider/core/config";
import { isEmptyValue } from "../../provider/core/diff";
import type { ImportDocument } from "./document";
import { Refusal, pooled } from "../command";
import { SECRET_SIG, SIG_KEY } from "../states";
import { listGroup, type Listing } from "./walk";
import { rootOf } from "../../sdk/uidp";

/** The adoption file's format version: ./load refuses any other. */
export const ADOPTION_FORMAT = 1;

type Props = Record<string, unknown>;

/** One resource as `pulumi import` records it, less what only the stack knows (its URN, provider, times). */
export interface AdoptedResource {
  type: string;
  /** Its name in the import document (the URN's last part). */
  name: string;
  id: string;
  /** The `name` of its parent in the same document, if any. */
  parent?: string;
  inputs: Props;
  outputs: Props;
}

export interface AdoptionFile {
  platformAdoption: {
    format: typeof ADOPTION_FORMAT;
    /** The version of the package (and its plugin) that read the state: the stack's plugin must be at least it. */
    pluginVersion: string;
    /** Where the document came from (`api <uid>`, `terraform <file>`). */
    source: string;
    /** The group whose tree the fingerprints cover. */
    scope: string;
    /** `<kind> <uid>` -> fingerprint of every object listed under the scope when the state was read. */
    fingerprints: Record<string, string>;
  };
  resources: AdoptedResource[];
}

/** Canonical JSON: members sorted at every depth. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Props)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * What tells that an object changed: the whole object as listed (its `updateTime` included, for the kinds that
 * have one), less `lastSeenTime`, which moves when an identity is used, not when it is changed.
 */
export function fingerprint(object: unknown): string {
  const { lastSeenTime: _used, ...rest } = (object ?? {}) as Props;
  return createHash("sha256").update(canonical(rest)).digest("hex").slice(0, 32);
}

/** The fingerprints of everything a listing found under its scope. */
export function fingerprints(listing: Listing): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { kind, uid, object } of listing.objects) out[`${kind} ${uid}`] = fingerprint(object);
  return out;
}

/** The scope a document's objects lie in, when no walk says: the organization of its first id. */
export function scopeOf(document: ImportDocument): string | undefined {
  const first = document.resources[0]?.id;
  return first === undefined ? undefined : rootOf(first);
}

/** The plugin's connection settings from the command's environment (the provider reads process.env otherwise). */
export async function configureFromEnv(env: Record<string, string | undefined>): Promise<void> {
  const byKey = new Map<string, string | undefined>();
  for (const name of Object.keys(CONFIG_SETTINGS) as ConfigName[]) {
    const variable = (ENV_VARS as Record<string, string>)[name];
    if (variable !== undefined) byKey.set(CONFIG_KEYS[name], env[variable]);
  }
  await configureFromLookup((key) => byKey.get(key));
}

/** True when a value holds a secret of the engine's wire form. */
function holdsSecret(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsSecret);
  if (typeof value !== "object" || value === null) return false;
  if ((value as Props)[SIG_KEY] === SECRET_SIG) return true;
  return Object.values(value as Props).some(holdsSecret);
}

/** What the plugin's Read answers an import (plugin/server.ts): outputs and inputs, declared secrets marked. */
export function importRead(
  declaration: { secrets: readonly string[] },
  read: { props?: Props; inputs?: Props },
): { outputs: Props; inputs: Props } {
  const mark = (props: Props): Props =>
    Object.fromEntries(
      Object.entries(props)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, declaration.secrets.includes(k) ? { [SIG_KEY]: SECRET_SIG, value: v } : v]),
    );
  const inputs = Object.fromEntries(Object.entries(read.inputs ?? {}).filter(([, v]) => !isEmptyValue(v)));
  return { outputs: mark(read.props ?? {}), inputs: mark(inputs) };
}

export interface AdoptionOptions {
  env: Record<string, string | undefined>;
  /** Reads in flight at once; default 32. */
  concurrency?: number;
  progress?: (line: string) => void;
}

/**
 * The state of every resource of `document`, read through the provider's operations (one GET each), with the
 * fingerprints of `listing` (taken before the reads). Throws Refusal when an object is gone or a read returned a
 * secret value.
 */
export async function readAdoption(
  document: ImportDocument,
  listing: { scope: string; fingerprints: Record<string, string> },
  options: AdoptionOptions,
): Promise<{ file: AdoptionFile; calls: number }> {
  const byToken = new Map(RESOURCES.map((r) => [r.declaration.token, r]));
  await configureFromEnv(options.env);
  let done = 0;
  try {
    const resources = await pooled(document.resources, options.concurrency ?? 32, async (spec) => {
      const resource = byToken.get(spec.type);
      if (resource === undefined) throw new Refusal(`${spec.name}: this package serves no type ${spec.type}`);
      const read = await resource.operations.read(spec.id);
      if (read.id === undefined || read.id === "")
        throw new Refusal(`${spec.name} (${spec.type} ${spec.id}) is gone: run platform-import again`);
      const { outputs, inputs } = importRead(resource.declaration, read);
      if (holdsSecret(outputs) || holdsSecret(inputs))
        throw new Refusal(
          `${spec.name} (${spec.type}) was read with a secret value, which an adoption file never holds in ` +
            `plain text: adopt it with pulumi import --file`,
        );
      done++;
      if (options.progress && done % 500 === 0)
        options.progress(`read ${done} of ${document.resources.length}`);
      const adopted: AdoptedResource = {
        type: spec.type,
        name: spec.name,
        id: read.id,
        ...(spec.parent !== undefined ? { parent: spec.parent } : {}),
        inputs,
        outputs,
      };
      return adopted;
    });
    return {
      file: {
        platformAdoption: {
          format: ADOPTION_FORMAT,
          pluginVersion: SDK_VERSION,
          source: document.platformImport.source,
          scope: listing.scope,
          fingerprints: listing.fingerprints,
        },
        resources,
      },
      calls: document.resources.length,
    };
  } finally {
    await closeClients();
  }
}

/** Lists `scope` and gives the fingerprints of what is under it (for the Terraform source, which has no walk). */
export async function listScope(
  client: PlatformClient,
  scope: string,
): Promise<{ fingerprints: Record<string, string>; calls: number }> {
  const listing = await listGroup(client, scope);
  return { fingerprints: fingerprints(listing), calls: listing.calls };
}

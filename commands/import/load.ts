/**
 * `platform-import load FILE`: loads an adoption file (./adoption) into the current stack in one step:
 * `pulumi stack export`, merged with the adopted resources, then `pulumi stack import` of the whole, so an
 * organization of thousands of objects is adopted without one engine step (and one checkpoint rewrite) each.
 *
 * The merge records each resource as `pulumi import` does (pkg/resource/deploy/step.go, ImportStep): its URN from
 * its name and its parents' types, its parent (the document's, else the stack), the default provider the program's
 * language registers it with (registrationOf: `pulumi:providers:platform::default` for YAML, the name the engine
 * gives the version and download URL a generated SDK asks for otherwise; made from the stack's config as the engine
 * makes it when the stack has none: inputs and outputs are the `platform:*` config and what the SDK asks for), the
 * read inputs and outputs, `protect: true`, the additional secret outputs a generated SDK asks for, and the
 * dependencies the program `pulumi import` prints will register (withRegisteredDependencies), so the first update
 * finds every resource as it would keep it and writes the checkpoint once, not once per resource. The stack's
 * own resources are kept as exported (their secrets stay ciphertext); a new provider's secret config goes to the
 * engine as `plaintext` on the command's stdin only, and the engine encrypts it with the stack's secrets provider.
 *
 * It refuses, changing nothing, when:
 *   - a resource it would add is already in the stack (by URN, or the same object under another name);
 *   - the stack's engine cannot take the state (its export was written by a newer engine than the `pulumi` on
 *     PATH, or is of a deployment version this command does not know), or the stack's provider cannot read it (no
 *     `platform` plugin installed at least as new as the one that read the state, or a default provider pinned to
 *     an older version);
 *   - anything under the adopted group changed since the state was read (listed again just before the import,
 *     compared by fingerprint).
 */
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type { PlatformClient } from "../../sdk";
import { buildPackageSchema } from "../../provider/schema";
import { ADOPTION_FORMAT, listScope, type AdoptedResource, type AdoptionFile } from "./adoption";
import { cyclesOf, referenceGuesser, stringLeaves } from "./document";
import { Refusal } from "../command";
import type { RunPulumi } from "../stacks";
import { SECRET_SIG, SIG_KEY } from "../states";

type Props = Record<string, unknown>;

/** A stack's resource as `pulumi stack export` writes it (the members this module reads or writes). */
export interface StateResource {
  urn: string;
  custom: boolean;
  type: string;
  id?: string;
  inputs?: Props;
  outputs?: Props;
  parent?: string;
  protect?: boolean;
  provider?: string;
  delete?: boolean;
  created?: string;
  modified?: string;
  [member: string]: unknown;
}

export interface Exported {
  version: number;
  deployment: { manifest?: { version?: string }; resources?: StateResource[]; [member: string]: unknown };
}

/** The deployment versions this command writes into: 3 (current) and 4 (3 with a list of features). */
const DEPLOYMENT_VERSIONS = [3, 4];
const STACK_TYPE = "pulumi:pulumi:Stack";
const PROVIDER_TYPE = "pulumi:providers:platform";

/** `v3.248.0` / `3.248.0-alpha` -> [3, 248, 0]; undefined when not a version. */
export function versionOf(text: string | undefined): [number, number, number] | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec((text ?? "").trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

function older(a: [number, number, number], b: [number, number, number]): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

/** Reads and checks an adoption file; throws Refusal for anything else. */
export function readAdoptionFile(text: string, file: string): AdoptionFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Refusal(`${file} is not an adoption file: it is not JSON`);
  }
  const meta = (parsed as { platformAdoption?: { format?: unknown } } | null)?.platformAdoption;
  if (meta === undefined || meta === null || typeof meta !== "object")
    throw new Refusal(`${file} is not an adoption file (make it with platform-import --state-out)`);
  if (meta.format !== ADOPTION_FORMAT)
    throw new Refusal(
      `${file} is an adoption file of format ${JSON.stringify(meta.format)}; this platform-import reads ` +
        `format ${ADOPTION_FORMAT}: write it again with this version`,
    );
  const resources = (parsed as { resources?: unknown }).resources;
  if (!Array.isArray(resources)) throw new Refusal(`${file}: "resources" is not a list`);
  return parsed as AdoptionFile;
}

/** The project's name, from Pulumi.yaml in `cwd` (its top-level `name:`). */
export function projectName(cwd: string): string {
  for (const file of ["Pulumi.yaml", "Pulumi.yml"]) {
    let text: string;
    try {
      text = fs.readFileSync(path.join(cwd, file), "utf8");
    } catch {
      continue;
    }
    const match = /^name:\s*["']?([^"'\s#]+)["']?\s*(#.*)?$/m.exec(text);
    if (match) return match[1]!;
    throw new Refusal(`${file} names no project (a top-level name:)`);
  }
  throw new Refusal(`no Pulumi.yaml in ${cwd}: run platform-import load in the project's directory`);
}

/** The language the project's program is in: Pulumi.yaml's `runtime:` (`runtime: nodejs`, or its `name:`). */
export function projectRuntime(cwd: string): string {
  for (const file of ["Pulumi.yaml", "Pulumi.yml"]) {
    let text: string;
    try {
      text = fs.readFileSync(path.join(cwd, file), "utf8");
    } catch {
      continue;
    }
    const inline = /^runtime:[ \t]*["']?([^"'\s#]+)["']?[ \t]*(#.*)?$/m.exec(text);
    if (inline) return inline[1]!;
    const nested = /^runtime:[ \t]*(#.*)?\n(?:[ \t]+.*\n|\n)*?[ \t]+name:[ \t]*["']?([^"'\s#]+)["']?/m.exec(
      text,
    );
    if (nested) return nested[2]!;
    throw new Refusal(`${file} names no runtime (a top-level runtime:)`);
  }
  throw new Refusal(`no Pulumi.yaml in ${cwd}: run platform-import load in the project's directory`);
}

/**
 * What the generated SDKs ask the engine for with every resource: the package's version and download URL, and, of a
 * resource with secret properties, those (`additionalSecretOutputs`, sorted by name as the code generators list them).
 */
export interface SdkRequest {
  version: string;
  pluginDownloadURL: string;
  secretOutputs: Record<string, string[]>;
}

/** The package schema's members SdkRequest is read from. */
interface SchemaFacts {
  version: string;
  pluginDownloadURL?: string;
  resources: Record<string, { properties?: Record<string, { secret?: boolean }> }>;
}

/** What the SDKs are generated from: the package schema (schema.json), built from the code as `generate` builds it. */
export function sdkRequest(schema = buildPackageSchema() as unknown as SchemaFacts): SdkRequest {
  const secretOutputs: Record<string, string[]> = {};
  for (const [token, resource] of Object.entries(schema.resources)) {
    const secret = Object.entries(resource.properties ?? {})
      .filter(([, spec]) => spec.secret === true)
      .map(([key]) => key)
      .sort();
    if (secret.length > 0) secretOutputs[token] = secret;
  }
  return { version: schema.version, pluginDownloadURL: schema.pluginDownloadURL ?? "", secretOutputs };
}

/** The runtimes whose programs register through a generated SDK of this package (native-sdks/). */
const SDK_RUNTIMES = ["nodejs", "python", "go", "java"];

/** What delimits the parts of an engine's qualified name (tokens.QNameDelimiter). */
const QNAME_DELIMITER = "/";

/**
 * The engine's `tokens.IntoQName`: each `/`-separated part, empty parts dropped, with every byte that may not be in a
 * name (`[A-Za-z0-9_.-]`) made `_`.
 */
function intoQName(text: string): string {
  const parts = text
    .split(QNAME_DELIMITER)
    .filter((part) => part !== "")
    .map((part) =>
      [...Buffer.from(part, "utf8")]
        .map((byte) => (/[A-Za-z0-9_.-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : "_"))
        .join(""),
    );
  return parts.join(QNAME_DELIMITER) || "_";
}

/**
 * The engine's name for the default provider of a request (pkg/resource/deploy/providers, ProviderRequest's
 * DefaultName): `default`, then the version's parts (`_0_2_0`, each pre-release and build part), then the download
 * URL made a name (a trailing `/` dropped).
 */
export function defaultProviderName(request: Partial<SdkRequest>): string {
  let name = "default";
  if (request.version !== undefined) {
    const match = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$/.exec(
      request.version,
    );
    if (!match)
      throw new Refusal(`the package's version ${JSON.stringify(request.version)} is not a semantic version`);
    name += `_${Number(match[1])}_${Number(match[2])}_${Number(match[3])}`;
    for (const part of [...(match[4]?.split(".") ?? []), ...(match[5]?.split(".") ?? [])]) name += `_${part}`;
  }
  const url = request.pluginDownloadURL?.replace(/\/$/, "");
  if (url) name += `_${intoQName(url)}`;
  return name;
}

/** How a program registers each adopted resource, besides its inputs: the members `load` records to match. */
export interface Registration {
  /** The default provider: its name and what the engine adds to its inputs (echoed as outputs) besides the config. */
  provider: { name: string; inputs: Props };
  /** A resource type's `additionalSecretOutputs`, by type. */
  secretOutputs: Readonly<Record<string, string[]>>;
}

/**
 * How the program of `runtime` registers its resources. A YAML program asks for no version (the provider
 * `default`) and no secret outputs; a program on a generated SDK asks for the package's version and download URL
 * (the provider the engine names after both) and the schema's secret properties as additional secret outputs.
 */
export function registrationOf(runtime: string, request: () => SdkRequest = sdkRequest): Registration {
  if (runtime === "yaml") return { provider: { name: "default", inputs: {} }, secretOutputs: {} };
  if (!SDK_RUNTIMES.includes(runtime))
    throw new Refusal(
      `Pulumi.yaml's runtime ${JSON.stringify(runtime)}: load knows how yaml and ${SDK_RUNTIMES.join(", ")} ` +
        `programs register their resources, not this one`,
    );
  const { version, pluginDownloadURL, secretOutputs } = request();
  const url = pluginDownloadURL.replace(/\/$/, "");
  return {
    provider: {
      name: defaultProviderName({ version, pluginDownloadURL: url }),
      inputs: { version, ...(url ? { __internal: { pluginDownloadURL: url } } : {}) },
    },
    secretOutputs,
  };
}

/** Whether Pulumi.yaml points the engine at a platform plugin of its own (`plugins: providers: - name: platform`). */
function projectPlugin(cwd: string): boolean {
  try {
    const text = fs.readFileSync(path.join(cwd, "Pulumi.yaml"), "utf8");
    return /^plugins:/m.test(text) && /^\s*-?\s*name:\s*["']?platform["']?\s*$/m.test(text);
  } catch {
    return false;
  }
}

/** `urn:pulumi:<stack>::<project>::<parent types>$<type>::<name>`, as the engine makes it. */
function urnOf(stack: string, project: string, parentType: string | undefined, type: string, name: string) {
  const qualified = parentType === undefined ? type : `${parentType}$${type}`;
  return `urn:pulumi:${stack}::${project}::${qualified}::${name}`;
}

/** The qualified type of a URN (its third part). */
function qualifiedType(urn: string): string {
  return urn.split("::")[2] ?? "";
}

export interface LoadOptions {
  pulumi: RunPulumi;
  /** The project directory (for Pulumi.yaml). */
  cwd: string;
  /** For the check that nothing changed; the scope is the file's. */
  client: PlatformClient;
  /** `--stack`, else the selected stack. */
  stack?: string;
  progress?: (line: string) => void;
  /** The time recorded as created/modified (tests fix it). */
  now?: () => Date;
}

export interface LoadResult {
  added: number;
  /** The stack's resource count after the load. */
  total: number;
  /** API calls made (the listing of the scope). */
  calls: number;
  /** Whether a default provider was added. */
  providerAdded: boolean;
}

async function pulumiOk(run: RunPulumi, args: string[], what: string, stdin?: string): Promise<string> {
  const result = await run(args, stdin);
  if (result.code !== 0) {
    const said = (result.stderr.trim() || result.stdout.trim()).split("\n").slice(-3).join(" / ");
    throw new Refusal(`pulumi ${args.join(" ")} failed (${what}): ${said}`);
  }
  return result.stdout;
}

/** The stack's `platform:*` config as the engine gives it to a default provider: strings, secrets marked. */
function providerConfig(configJson: string): Props {
  let parsed: Record<string, { value?: unknown; secret?: boolean }>;
  try {
    parsed = JSON.parse(configJson || "{}") as typeof parsed;
  } catch {
    throw new Refusal(`pulumi config --json printed something that is not JSON`);
  }
  const inputs: Props = {};
  for (const [key, entry] of Object.entries(parsed)) {
    if (!key.startsWith("platform:") || entry.value === undefined) continue;
    const value = typeof entry.value === "string" ? entry.value : JSON.stringify(entry.value);
    // Plain text in memory only: the engine encrypts it with the stack's secrets provider.
    inputs[key.slice("platform:".length)] =
      entry.secret === true ? { [SIG_KEY]: SECRET_SIG, plaintext: JSON.stringify(value) } : value;
  }
  return inputs;
}

/**
 * Compares the fingerprints recorded with those listed now; gives what changed (`<kind> <uid>` with how), sorted.
 */
export function changedSince(recorded: Record<string, string>, now: Record<string, string>): string[] {
  const changed: string[] = [];
  const keys = new Set([...Object.keys(recorded), ...Object.keys(now)]);
  for (const key of keys) {
    const before = Object.hasOwn(recorded, key) ? recorded[key] : undefined;
    const after = Object.hasOwn(now, key) ? now[key] : undefined;
    if (before === after) continue;
    changed.push(`${key} ${before === undefined ? "added" : after === undefined ? "deleted" : "changed"}`);
  }
  return changed.sort();
}

/**
 * The adopted resources with the dependencies the printed program registers, in an order the engine accepts (a
 * resource after its parent and its dependencies). `pulumi import` prints an input equal to another imported
 * resource's id or name as a reference to it (./document, referenceGuesser), unless its guesses make a cycle, when
 * it prints none; the program then registers each reference as a dependency of the resource and of that input.
 * The engine keeps those (`dependencies`, `propertyDependencies`: every input, with the resources it refers to) and
 * rewrites the whole checkpoint for any resource whose recorded dependencies differ, so they are recorded here as
 * the program will register them, and the first update after the load writes the checkpoint once, not once per
 * resource.
 */
export function withRegisteredDependencies(
  adopted: readonly StateResource[],
  resources: readonly AdoptedResource[],
  parents: readonly (number | undefined)[],
): StateResource[] {
  const guess = referenceGuesser(
    resources.map((r) => ({
      id: r.id,
      outputName: typeof r.outputs["name"] === "string" ? r.outputs["name"] : undefined,
    })),
  );
  const references = resources.map((r, i) =>
    Object.entries(r.inputs).map(([key, value]): [string, number[]] => {
      const targets = stringLeaves(value)
        .map((leaf) => guess(i, leaf))
        .filter((t): t is number => t !== undefined);
      return [key, [...new Set(targets)]];
    }),
  );
  const edges = references.map((byKey, i) => [
    ...(parents[i] === undefined ? [] : [parents[i]]),
    ...byKey.flatMap(([, targets]) => targets),
  ]);
  const printed = cyclesOf(edges).length === 0;
  const withDependencies = adopted.map((resource, i): StateResource => {
    const byKey = references[i]!.map(([key, targets]): [string, string[]] => [
      key,
      printed ? targets.map((t) => adopted[t]!.urn) : [],
    ]);
    const dependencies = [...new Set(byKey.flatMap(([, urns]) => urns))];
    return {
      ...resource,
      ...(dependencies.length > 0 ? { dependencies } : {}),
      ...(byKey.length > 0 ? { propertyDependencies: Object.fromEntries(byKey) } : {}),
    };
  });
  // Depth first, in the file's order: each resource after its parent and what it depends on.
  const placed = new Set<number>();
  const ordered: StateResource[] = [];
  const place = (i: number): void => {
    if (placed.has(i)) return;
    placed.add(i);
    for (const before of printed ? edges[i]! : parents[i] === undefined ? [] : [parents[i]]) place(before);
    ordered.push(withDependencies[i]!);
  };
  adopted.forEach((_, i) => place(i));
  return ordered;
}

/**
 * The stack's deployment with the adopted resources added (pure: the tests drive it directly). Throws Refusal on a
 * resource already in the stack.
 */
export function mergeAdoption(
  exported: Exported,
  adoption: AdoptionFile,
  where: {
    stack: string;
    project: string;
    providerConfig: () => Props;
    now: string;
    providerId: () => string;
    /** How the program registers the resources (registrationOf); a YAML program's when not said. */
    registration?: Registration;
  },
): { deployment: Exported; added: number; providerAdded: boolean } {
  const existing = [...(exported.deployment.resources ?? [])];
  const live = existing.filter((r) => r.delete !== true);
  const byUrn = new Map(live.map((r) => [r.urn, r]));
  const stackUrn = urnOf(
    where.stack,
    where.project,
    undefined,
    STACK_TYPE,
    `${where.project}-${where.stack}`,
  );
  const out: StateResource[] = [...existing];
  if (!byUrn.has(stackUrn)) {
    out.unshift({ urn: stackUrn, custom: false, type: STACK_TYPE, created: where.now, modified: where.now });
  }
  const registration = where.registration ?? registrationOf("yaml");
  const defaultProvider = registration.provider;
  const providerUrn = urnOf(where.stack, where.project, undefined, PROVIDER_TYPE, defaultProvider.name);
  let provider = byUrn.get(providerUrn);
  let providerAdded = false;
  if (provider === undefined) {
    const config = { ...where.providerConfig(), ...defaultProvider.inputs };
    provider = {
      urn: providerUrn,
      custom: true,
      id: where.providerId(),
      type: PROVIDER_TYPE,
      ...(Object.keys(config).length > 0 ? { inputs: config, outputs: config } : {}),
      created: where.now,
      modified: where.now,
    };
    const at = out.findIndex((r) => r.urn === stackUrn);
    out.splice(at + 1, 0, provider);
    providerAdded = true;
  }
  const providerRef = `${providerUrn}::${provider.id}`;

  const managed = new Map<string, string>();
  for (const r of live) if (r.custom && r.id) managed.set(`${r.type} ${r.id}`, r.urn);
  const byName = new Map<string, { urn: string; type: string; at: number }>();
  const conflicts: string[] = [];
  const adopted: StateResource[] = [];
  const resources = adoption.resources as AdoptedResource[];
  for (const resource of resources) {
    const parent = resource.parent === undefined ? undefined : byName.get(resource.parent);
    if (resource.parent !== undefined && parent === undefined)
      throw new Refusal(
        `${resource.name}: its parent ${resource.parent} comes after it, or is not in the file`,
      );
    const urn = urnOf(
      where.stack,
      where.project,
      parent === undefined ? undefined : qualifiedType(parent.urn),
      resource.type,
      resource.name,
    );
    if (byName.has(resource.name) || adopted.some((a) => a.urn === urn))
      throw new Refusal(`the file names ${resource.name} twice`);
    byName.set(resource.name, { urn, type: resource.type, at: adopted.length });
    const clash = byUrn.get(urn) ?? undefined;
    const same = managed.get(`${resource.type} ${resource.id}`);
    if (clash !== undefined) conflicts.push(`${urn} is already in the stack`);
    else if (same !== undefined)
      conflicts.push(`${resource.type} ${resource.id} is already managed as ${same}`);
    adopted.push({
      urn,
      custom: true,
      id: resource.id,
      type: resource.type,
      ...(Object.keys(resource.inputs).length > 0 ? { inputs: resource.inputs } : {}),
      ...(Object.keys(resource.outputs).length > 0 ? { outputs: resource.outputs } : {}),
      parent: parent?.urn ?? stackUrn,
      protect: true,
      ...(Object.hasOwn(registration.secretOutputs, resource.type)
        ? { additionalSecretOutputs: registration.secretOutputs[resource.type] }
        : {}),
      provider: providerRef,
      created: where.now,
      modified: where.now,
    });
  }
  if (conflicts.length > 0)
    throw new Refusal(
      `${conflicts.length} of the resources to adopt ${conflicts.length === 1 ? "is" : "are"} already in the ` +
        `stack, nothing loaded: ${conflicts.slice(0, 3).join("; ")}${conflicts.length > 3 ? "; ..." : ""}`,
    );
  const parents = resources.map((r) => (r.parent === undefined ? undefined : byName.get(r.parent)!.at));
  const registered = withRegisteredDependencies(adopted, resources, parents);
  return {
    deployment: { ...exported, deployment: { ...exported.deployment, resources: [...out, ...registered] } },
    added: adopted.length,
    providerAdded,
  };
}

/** Loads `adoption` into the stack; throws Refusal, having changed nothing, for each case in the header. */
export async function loadAdoption(adoption: AdoptionFile, options: LoadOptions): Promise<LoadResult> {
  const run = options.pulumi;
  const stackArgs = options.stack !== undefined ? ["--stack", options.stack] : [];
  const progress = options.progress ?? (() => undefined);
  const meta = adoption.platformAdoption;

  const engineText = (await pulumiOk(run, ["version"], "the engine's version")).trim();
  const engine = versionOf(engineText);
  if (engine === undefined) throw new Refusal(`pulumi version printed ${JSON.stringify(engineText)}`);
  const exportedText = await pulumiOk(run, ["stack", "export", ...stackArgs], "the stack's state");
  let exported: Exported;
  try {
    exported = JSON.parse(exportedText) as Exported;
  } catch {
    throw new Refusal(`pulumi stack export printed something that is not a state`);
  }
  if (!DEPLOYMENT_VERSIONS.includes(exported.version))
    throw new Refusal(
      `the stack's state is of deployment version ${exported.version}; this command merges into versions ` +
        `${DEPLOYMENT_VERSIONS.join(" and ")}: adopt with pulumi import --file`,
    );
  const writtenBy = versionOf(exported.deployment.manifest?.version);
  if (writtenBy !== undefined && older(engine, writtenBy))
    throw new Refusal(
      `the stack was last written by engine ${exported.deployment.manifest?.version}, newer than this ` +
        `pulumi (${engineText}), which may not read all of it back: use pulumi ${exported.deployment.manifest?.version} or later`,
    );

  const wanted = versionOf(meta.pluginVersion);
  if (wanted === undefined) throw new Refusal(`the adoption file names no plugin version`);
  if (!projectPlugin(options.cwd)) {
    const listed = await pulumiOk(run, ["plugin", "ls", "--json"], "the installed plugins");
    let plugins: { name?: string; kind?: string; version?: string }[];
    try {
      plugins = JSON.parse(listed || "[]") as typeof plugins;
    } catch {
      throw new Refusal(`pulumi plugin ls --json printed something that is not JSON`);
    }
    const versions = (plugins ?? [])
      .filter((p) => p.name === "platform" && p.kind === "resource")
      .map((p) => versionOf(p.version))
      .filter((v): v is [number, number, number] => v !== undefined);
    if (versions.length === 0)
      throw new Refusal(
        `no platform plugin is installed for this stack: install version ${meta.pluginVersion} or later ` +
          `(pulumi plugin install resource platform ...) before loading state it has to read`,
      );
    const newest = versions.reduce((a, b) => (older(a, b) ? b : a));
    if (older(newest, wanted))
      throw new Refusal(
        `the platform plugin installed is ${newest.join(".")}, older than ${meta.pluginVersion}, which read ` +
          `this state: install ${meta.pluginVersion} or later first`,
      );
  }
  // eslint-disable-next-line no-restricted-syntax -- a stack's name (organization/project/stack), not a uid
  const stackName = (await pulumiOk(run, ["stack", "--show-name", ...stackArgs], "the stack's name"))
    .trim()
    .split("/")
    .pop()!;
  const project = projectName(options.cwd);
  const registration = registrationOf(projectRuntime(options.cwd));
  const providerUrn = urnOf(stackName, project, undefined, PROVIDER_TYPE, registration.provider.name);
  const pinned = (exported.deployment.resources ?? []).find((r) => r.urn === providerUrn && r.delete !== true)
    ?.inputs?.["version"];
  const pinnedVersion = typeof pinned === "string" ? versionOf(pinned) : undefined;
  if (pinnedVersion !== undefined && older(pinnedVersion, wanted))
    throw new Refusal(
      `the stack's default platform provider is pinned to ${pinned}, older than ${meta.pluginVersion}, ` +
        `which read this state`,
    );

  const hasProvider = (exported.deployment.resources ?? []).some(
    (r) => r.urn === providerUrn && r.delete !== true,
  );
  // The config (secrets in plain text, in memory only) is read only when a default provider must be made of it.
  const config = hasProvider
    ? {}
    : providerConfig(
        await pulumiOk(run, ["config", "--json", "--show-secrets", ...stackArgs], "the stack's config"),
      );
  const merged = mergeAdoption(exported, adoption, {
    stack: stackName,
    project,
    providerConfig: () => config,
    now: (options.now?.() ?? new Date()).toISOString(),
    providerId: () => randomUUID(),
    registration,
  });

  // Last, just before the import: nothing under the scope changed since it was read.
  const listed = await listScope(options.client, meta.scope);
  const changed = changedSince(meta.fingerprints, listed.fingerprints);
  if (changed.length > 0)
    throw new Refusal(
      `${changed.length} object${changed.length === 1 ? "" : "s"} under ${meta.scope} changed since the state ` +
        `was read, nothing loaded (run platform-import again): ${changed.slice(0, 5).join(", ")}` +
        (changed.length > 5 ? ", ..." : ""),
    );
  progress(`${meta.scope}: unchanged since the read (${listed.calls} API calls)`);

  await pulumiOk(
    run,
    ["stack", "import", ...stackArgs],
    "loading the merged state",
    JSON.stringify(merged.deployment),
  );
  return {
    added: merged.added,
    total: (merged.deployment.deployment.resources ?? []).length,
    calls: listed.calls,
    providerAdded: merged.providerAdded,
  };
}

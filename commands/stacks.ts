/**
 * Where the stacks' states come from: files exported by hand (`--state FILE`), or every stack of a Pulumi backend
 * (`--backend URL`, else the one the engine uses: `PULUMI_BACKEND_URL`, else what `pulumi whoami` reports; only those
 * matching `--stacks PATTERN` when given), read through the engine's own commands and nothing else: one
 * `pulumi stack ls --all --json` and one `pulumi stack export` per stack, a few at a time. The engine reads its
 * state format; this module only hands the exports to ../states.
 *
 * Secrets stay encrypted: `stack export` without `--show-secrets` never opens a stack's secrets provider (the DIY
 * backends, file, PostgreSQL and the object stores, hand the stored checkpoint back as it is), so the engine is run
 * with no passphrase at all, and a stack whose passphrase the caller lacks is read like any other. A stack the engine
 * cannot export is named with the engine's reason, and the others are still read.
 *
 * A backend URL can carry a password (`postgres://user:password@host/db`): it is shown, and the engine's messages
 * are passed on, with it masked.
 */
import { spawn } from "node:child_process";
import { Refusal, maskSecrets, pooled, readText } from "./command";
import { readState, type StateContents } from "./states";

/** How `pulumi` is run: the real CLI, or a test's stand-in. */
export type RunPulumi = (
  args: string[],
  stdin?: string,
) => Promise<{ code: number; stdout: string; stderr: string }>;

/** The CLI on PATH, in `cwd`, with `env`. */
export function pulumiCli(cwd: string, env: Record<string, string | undefined>): RunPulumi {
  return (args, stdin) =>
    new Promise((resolve, reject) => {
      const child = spawn("pulumi", [...args, "--non-interactive"], {
        cwd,
        env: env as NodeJS.ProcessEnv,
        stdio: ["pipe", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
      child.on("error", (err) =>
        reject(
          new Refusal(`cannot run pulumi (${(err as NodeJS.ErrnoException).code ?? err}): is it on PATH?`),
        ),
      );
      child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
      child.stdin.end(stdin ?? "");
    });
}

/** One state read: its name (the stack's, or the file's) and what it manages. */
export interface NamedState {
  file: string;
  contents: StateContents;
}

/** A stack the engine could not export, and why (its own words). */
export interface UnreadableStack {
  stack: string;
  reason: string;
}

export interface Sources {
  /** The backend read, as shown (a password masked); absent when only files were given. */
  backend?: string;
  states: NamedState[];
  /** How many of `states` are a backend's stacks. */
  stacks: number;
  unreadable: UnreadableStack[];
  /** How many times the engine was run. */
  invocations: number;
  /** How long the reading took, files and stacks. */
  elapsedMs: number;
}

export interface SourceOptions {
  /** `--state` files. */
  files: readonly string[];
  /** Read a backend: `--backend`'s URL, or `true` for the engine's current one. */
  backend?: string | true;
  /** `--stacks` patterns: only the stacks matching one of them. */
  patterns?: readonly string[];
  env: Record<string, string | undefined>;
  /** How the engine is run with a given environment (default: the CLI on PATH, in the process's directory). */
  engine?: (env: Record<string, string | undefined>) => RunPulumi;
  /** How many exports run at once. */
  concurrency?: number;
}

/** Exports at once: each is a short engine process, mostly waiting on the backend. */
export const EXPORT_CONCURRENCY = 4;

/** A URL as it may be shown: its password, and query values that look like credentials, masked. */
export function displayUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  let changed = false;
  if (parsed.password !== "") {
    parsed.password = "***";
    changed = true;
  }
  for (const key of [...parsed.searchParams.keys()])
    if (/pass|secret|token|key|credential/i.test(key)) {
      parsed.searchParams.set(key, "***");
      changed = true;
    }
  return changed ? parsed.toString() : url;
}

/**
 * Masks in any text the URL itself (by its shown form) and its credentials standing alone: its password, also
 * decoded, and credential-like query values, which no rule on the text's URLs can find.
 */
function scrubberOf(url: string): (text: string) => string {
  const shown = displayUrl(url);
  const secrets: string[] = [];
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") secrets.push(decodeURIComponent(parsed.password), parsed.password);
    for (const [key, value] of parsed.searchParams)
      if (/pass|secret|token|key|credential/i.test(key) && value !== "") secrets.push(value);
  } catch {
    // Not a URL: nothing in it to mask.
  }
  return (text) => maskSecrets(text.split(url).join(shown), secrets);
}

// A URL's password, wherever a URL is written in a text: `scheme://user:PASSWORD@`. The password runs to the last `@`
// before a blank, so one holding a raw `@` or `/` is masked whole (a few characters of the host beside it at worst).
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^\s:@/]*:)\S*@/gi;

// A `--stacks` pattern as a test of a stack's name: `*` is any run of characters but `/`, `**` any run, `?` one
// character but `/`. A pattern with fewer parts than the name matches the name's last parts: `*/prod` is every
// project's prod stack, `prod` every stack named prod.
export function stackMatcher(pattern: string): (name: string) => boolean {
  // eslint-disable-next-line no-restricted-syntax -- a stack name's pattern, not a uid
  if (pattern.split("/").some((part) => part === ""))
    throw new Refusal(
      `--stacks takes a pattern such as organization/*/prod or */prod, not ${JSON.stringify(pattern)}`,
    );
  const source = pattern
    .split(/(\*\*|\*|\?)/)
    .map((part) =>
      part === "**"
        ? ".*"
        : part === "*"
          ? "[^/]*"
          : part === "?"
            ? "[^/]"
            : part.replace(/[.+^${}()|[\]\\]/g, "\\$&"),
    )
    .join("");
  const regex = new RegExp(`(?:^|/)${source}$`);
  return (name) => regex.test(name);
}

/**
 * The engine's last words on a failure, on one line, the password of every URL in them masked: the engine may name a
 * backend no one gave it (the one `pulumi login` stored), so this does not depend on knowing the URL.
 */
function said(result: { stdout: string; stderr: string }): string {
  const text = result.stderr.trim() || result.stdout.trim();
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .slice(-2)
    .join(" / ")
    .replace(/^error: /, "")
    .replace(URL_PASSWORD, "$1***@");
}

/**
 * The environment the engine runs in: the caller's, without any passphrase, no update check. On PostgreSQL, the
 * engine's `stack ls` reads one stack at a time: its DIY PostgreSQL store (pkg/backend/diy/postgres, 3.248) holds a
 * connection while a listing queries each row on another, from a pool of 2 × GOMAXPROCS connections, and `stack ls`
 * lists 10 stacks at once by default, so with as many stacks as connections it waits forever (4 stacks on two cores).
 */
function engineEnv(
  env: Record<string, string | undefined>,
  backendUrl?: string,
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = { ...env, PULUMI_SKIP_UPDATE_CHECK: "true" };
  delete out["PULUMI_CONFIG_PASSPHRASE"];
  delete out["PULUMI_CONFIG_PASSPHRASE_FILE"];
  if (backendUrl !== undefined) out["PULUMI_BACKEND_URL"] = backendUrl;
  if (backendUrl !== undefined && /^postgres(ql)?:\/\//.test(backendUrl))
    out["PULUMI_DIY_BACKEND_PARALLEL"] = "1";
  return out;
}

/** The stacks' names, as `pulumi stack ls --all --json` prints them. */
function stackNames(stdout: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new Refusal(`pulumi stack ls --json printed something that is not JSON`);
  }
  if (!Array.isArray(parsed) || parsed.some((s) => typeof (s as { name?: unknown })?.name !== "string"))
    throw new Refusal(`pulumi stack ls --json printed something that is not a list of stacks`);
  return (parsed as { name: string }[]).map((s) => s.name).sort();
}

/** The backend URL `pulumi whoami --json` names, if it names one. */
function urlOf(stdout: string): string | undefined {
  try {
    const url = (JSON.parse(stdout) as { url?: unknown } | null)?.url;
    return typeof url === "string" && url !== "" ? url : undefined;
  } catch {
    return undefined;
  }
}

/** Every stack of a backend (or those matching a pattern), each exported once. */
async function readBackend(options: SourceOptions, counter: { invocations: number }) {
  const matchers = (options.patterns ?? []).map(stackMatcher);
  const engine = options.engine ?? ((env) => pulumiCli(process.cwd(), env));
  const run = async (env: Record<string, string | undefined>, args: string[]) => {
    counter.invocations++;
    return await engine(env)(args);
  };
  let url =
    typeof options.backend === "string" ? options.backend : options.env["PULUMI_BACKEND_URL"] || undefined;
  if (url === undefined) {
    const whoami = await run(engineEnv(options.env), ["whoami", "--json"]);
    const named = whoami.code === 0 ? urlOf(whoami.stdout) : undefined;
    if (named === undefined)
      throw new Refusal(
        `no backend to read: pulumi whoami names none (${whoami.code === 0 ? "no url" : said(whoami)}); ` +
          `give --backend URL or run pulumi login`,
      );
    url = named;
  }
  const scrub = scrubberOf(url);
  const env = engineEnv(options.env, url);
  const listed = await run(env, ["stack", "ls", "--all", "--json", "--fully-qualify-stack-names"]);
  if (listed.code !== 0) throw new Refusal(scrub(`cannot list the stacks of ${url}: ${said(listed)}`));
  const names = stackNames(listed.stdout).filter((n) => matchers.length === 0 || matchers.some((m) => m(n)));
  const read = await pooled(names, options.concurrency ?? EXPORT_CONCURRENCY, async (name) => {
    const exported = await run(env, ["stack", "export", `--stack=${name}`]);
    if (exported.code !== 0) return { stack: name, reason: scrub(said(exported)) };
    try {
      return { file: name, contents: readState(exported.stdout, name) };
    } catch (err) {
      if (err instanceof Refusal) return { stack: name, reason: err.message };
      throw err;
    }
  });
  return {
    backend: displayUrl(url),
    states: read.filter((r): r is NamedState => "contents" in r),
    unreadable: read.filter((r): r is UnreadableStack => "reason" in r),
  };
}

/** What was read, for stderr: the backend's stacks and the engine's cost, and each stack it could not export. */
export function sourcesSaid(sources: Sources): string[] {
  if (sources.backend === undefined) return [];
  return [
    `${sources.backend}: ${sources.stacks} stacks read, ${sources.unreadable.length} not ` +
      `(${sources.invocations} engine invocations, ${sources.elapsedMs} ms)`,
    ...sources.unreadable.map((u) => `not read: ${u.stack}: ${u.reason}`),
  ];
}

/** Reads `--state` files (a file given twice is read once); a file that cannot be read is a refusal. */
function readFiles(files: readonly string[]): NamedState[] {
  return [...new Set(files)].map((file) => ({ file, contents: readState(readText(file), file) }));
}

/** The states of the files, then of the backend's stacks when asked. Files are read first: a bad one refuses. */
export async function readSources(options: SourceOptions): Promise<Sources> {
  const started = Date.now();
  const files = readFiles(options.files);
  if (options.backend === undefined && (options.patterns ?? []).length === 0)
    return { states: files, stacks: 0, unreadable: [], invocations: 0, elapsedMs: Date.now() - started };
  const counter = { invocations: 0 };
  const backend = await readBackend(options, counter);
  return {
    backend: backend.backend,
    states: [...files, ...backend.states],
    stacks: backend.states.length,
    unreadable: backend.unreadable,
    invocations: counter.invocations,
    elapsedMs: Date.now() - started,
  };
}

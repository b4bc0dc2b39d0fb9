/**
 * End-to-end harness: drives the real `pulumi` CLI (our offline engine, see scripts/build-engine.sh) against a
 * Pulumi program directory, one throwaway stack at a time, in a fresh temporary file backend (or a backend the
 * test shares between stacks).
 *
 *   const stack = await PulumiStack.create({ programDir: "examples/quickstart", config: {...}, secrets: {...} });
 *   try { await stack.up(); await stack.preview(); ... } finally { await stack.cleanup(); }
 *
 * Every command runs through scripts/pulumi-env.sh (the one place that knows how to keep the CLI offline), has a
 * timeout, and throws a PulumiCommandError carrying its output when it fails. Secret config values go to the CLI
 * on stdin, never on its command line, so they appear in no error message and no process list.
 */
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** The repository root (this file is test/e2e/harness.ts). */
export const repoRoot = path.resolve(__dirname, "..", "..");

/** A fixed, NON-secret passphrase for the throwaway stacks' secrets. */
export const testPassphrase = "pulumi-platform-e2e-passphrase";

const defaultTimeoutMs = 180_000;

let cachedEngineBin: string | undefined;

/**
 * The directory holding `pulumi` and its Node.js plugins: env PULUMI_PLATFORM_ENGINE_BIN (set by scripts/test.sh),
 * else the last line printed by scripts/build-engine.sh (which builds the engine on first use: minutes).
 */
export function engineBinDir(): string {
  if (cachedEngineBin !== undefined) return cachedEngineBin;
  const fromEnv = process.env["PULUMI_PLATFORM_ENGINE_BIN"]?.trim();
  if (fromEnv) {
    cachedEngineBin = fromEnv;
  } else {
    const stdout = execFileSync("bash", [path.join(repoRoot, "scripts", "build-engine.sh")], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      timeout: 30 * 60_000,
    });
    const lines = stdout.trim().split("\n");
    cachedEngineBin = lines[lines.length - 1] ?? "";
  }
  if (!fs.existsSync(path.join(cachedEngineBin, "pulumi"))) {
    throw new Error(`no pulumi executable in the engine bin dir '${cachedEngineBin}'`);
  }
  return cachedEngineBin;
}

/** What one CLI command did. */
export interface CommandResult {
  /** The command line, e.g. `pulumi up --yes --skip-preview` (never contains a secret value). */
  command: string;
  exitCode: number;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/** A CLI command exited non-zero or timed out; the message includes the command's output. */
export class PulumiCommandError extends Error {
  constructor(
    readonly result: CommandResult,
    readonly context: string,
    readonly timedOut: boolean,
  ) {
    const how = timedOut
      ? `timed out after ${result.durationMs} ms`
      : `failed with exit code ${result.exitCode}`;
    super(
      `\`${result.command}\` (${context}) ${how}\n` +
        `--- stdout ---\n${tail(result.stdout)}\n--- stderr ---\n${tail(result.stderr)}`,
    );
    this.name = "PulumiCommandError";
  }
}

function tail(text: string, max = 6000): string {
  return text.length <= max ? text : `[... ${text.length - max} characters cut ...]\n${text.slice(-max)}`;
}

export interface RunOptions {
  /** Per-command timeout; default 180 s. */
  timeoutMs?: number;
  /** Written to the command's stdin (used for secret values). */
  stdin?: string;
  /** Return the result instead of throwing when the command exits non-zero. */
  allowFailure?: boolean;
  /** Extra environment for this command only. */
  env?: Record<string, string>;
  /** A command that takes no `--stack` (e.g. `plugin install`), run in this stack's environment all the same. */
  stackless?: boolean;
  /** A command the `pulumi` invocation runs under, e.g. `["/usr/bin/time", "-o", file]` (bench/stack.ts). */
  wrapper?: string[];
}

export interface StackOptions {
  /** The Pulumi program's directory, absolute or relative to the repo root. */
  programDir: string;
  /** Stack name; default `e2e-<random>`. */
  stackName?: string;
  /** Plain config, `key: value` (keys with a namespace, e.g. `platform:url`). */
  config?: Record<string, string>;
  /** Secret config, set with `pulumi config set --secret` (value through stdin). */
  secrets?: Record<string, string>;
  /** Extra environment for every command (e.g. an emulator's URL). */
  env?: Record<string, string>;
  /** Default timeout of every command; default 180 s. */
  timeoutMs?: number;
  /** A backend to make the stack in, shared with other stacks (default: a fresh file backend of its own). */
  backendUrl?: string;
  /** The stack's secrets passphrase (default: testPassphrase). */
  passphrase?: string;
}

/** The parts of `pulumi stack export` tests look at. */
export interface StackState {
  version: number;
  deployment: {
    resources?: Array<{
      urn: string;
      type: string;
      id?: string;
      inputs?: Record<string, unknown>;
      outputs?: Record<string, unknown>;
      [key: string]: unknown;
    }>;
    [key: string]: unknown;
  };
}

/** One throwaway stack of one program, in its own temporary backend and PULUMI_HOME. */
export class PulumiStack {
  private removed = false;

  private constructor(
    readonly name: string,
    readonly programDir: string,
    /** Temporary directory holding the file backend and PULUMI_HOME; deleted by cleanup(). */
    readonly stateDir: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly timeoutMs: number,
  ) {}

  /** Creates the stack in a fresh temporary backend and sets its config. */
  static async create(options: StackOptions): Promise<PulumiStack> {
    const programDir = path.resolve(repoRoot, options.programDir);
    if (!fs.existsSync(path.join(programDir, "Pulumi.yaml"))) {
      throw new Error(`${programDir} is not a Pulumi program (no Pulumi.yaml)`);
    }
    const name = options.stackName ?? `e2e-${randomBytes(4).toString("hex")}`;
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-platform-e2e-"));

    const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
    // Nothing from the developer's own Pulumi setup leaks in (cloud tokens, passphrase files, other backends).
    for (const key of Object.keys(env)) {
      if (key === "PULUMI_ACCESS_TOKEN" || key.startsWith("PULUMI_CONFIG_PASSPHRASE")) delete env[key];
    }
    Object.assign(env, {
      PULUMI_PLATFORM_ENGINE_BIN: engineBinDir(),
      PULUMI_PLATFORM_STATE_DIR: stateDir,
      PULUMI_HOME: path.join(stateDir, "home"),
      PULUMI_BACKEND_URL: options.backendUrl ?? `file://${path.join(stateDir, "backend")}`,
      PULUMI_CONFIG_PASSPHRASE: options.passphrase ?? testPassphrase,
      NO_COLOR: "1",
    });

    const stack = new PulumiStack(name, programDir, stateDir, env, options.timeoutMs ?? defaultTimeoutMs);
    try {
      await stack.run(["stack", "init"]); // named by the --stack flag run() adds
      for (const [key, value] of Object.entries(options.config ?? {})) await stack.setConfig(key, value);
      for (const [key, value] of Object.entries(options.secrets ?? {})) {
        await stack.setConfig(key, value, { secret: true });
      }
    } catch (error) {
      await stack.cleanup();
      throw error;
    }
    return stack;
  }

  /**
   * Runs `pulumi <args>` for this stack, in the program directory, in the offline environment. Adds
   * `--stack <name> --non-interactive --color never`.
   */
  run(args: string[], options: RunOptions = {}): Promise<CommandResult> {
    const stackFlag = options.stackless ? [] : ["--stack", this.name];
    const fullArgs = [...args, ...stackFlag, "--non-interactive", "--color", "never"];
    return this.spawnOffline(
      [...(options.wrapper ?? []), "pulumi", ...fullArgs],
      `pulumi ${fullArgs.join(" ")}`,
      {
        ...options,
        cwd: this.programDir,
      },
    );
  }

  /**
   * Runs a shell command line (`bash -c`) as a person following a document would type it: in `dir` (default: the
   * program directory), in this stack's offline environment with PULUMI_STACK naming the stack, plus `env`. Throws
   * a PulumiCommandError when it exits non-zero, unless `allowFailure`.
   */
  shell(
    command: string,
    options: { dir?: string; env?: Record<string, string>; allowFailure?: boolean; timeoutMs?: number } = {},
  ): Promise<CommandResult> {
    return this.spawnOffline(["bash", "-c", command], command, {
      ...options,
      cwd: options.dir ?? this.programDir,
      env: { PULUMI_STACK: this.name, ...options.env },
    });
  }

  /** Runs `argv` through scripts/pulumi-env.sh in this stack's environment, with a timeout; `display` names it. */
  private spawnOffline(
    argv: string[],
    display: string,
    options: Omit<RunOptions, "wrapper" | "stackless"> & { cwd: string },
  ): Promise<CommandResult> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const started = Date.now();

    return new Promise((resolve, reject) => {
      const envScript = path.join(repoRoot, "scripts", "pulumi-env.sh");
      const child = spawn("bash", [envScript, ...argv], {
        cwd: options.cwd,
        env: { ...this.env, ...options.env },
        // Its own process group, so a timeout stops the CLI's plugins and the Node.js program too.
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      child.stdin.end(options.stdin ?? "");

      let timedOut = false;
      const signalGroup = (signal: NodeJS.Signals) => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, signal);
        } catch {
          // Already gone.
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        signalGroup("SIGINT"); // lets the CLI cancel cleanly...
        setTimeout(() => signalGroup("SIGKILL"), 5_000).unref(); // ...or not.
      }, timeoutMs);

      child.on("error", (error) => {
        clearTimeout(timer);
        reject(new Error(`could not start \`${display}\`: ${error.message}`));
      });
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        const result: CommandResult = {
          command: display,
          exitCode: code ?? (signal ? 128 : 1),
          stdout,
          stderr,
          durationMs: Date.now() - started,
        };
        if ((result.exitCode !== 0 || timedOut) && !(options.allowFailure && !timedOut)) {
          reject(
            new PulumiCommandError(
              result,
              `stack ${this.name} in ${path.relative(repoRoot, options.cwd)}`,
              timedOut,
            ),
          );
        } else {
          resolve(result);
        }
      });
    });
  }

  /** `pulumi config set [--secret] <key>`, the value through stdin. */
  async setConfig(key: string, value: string, options: { secret?: boolean } = {}): Promise<void> {
    await this.run(["config", "set", ...(options.secret ? ["--secret"] : ["--plaintext"]), key], {
      stdin: value,
    });
  }

  /** `pulumi up --yes --skip-preview`. */
  up(options: RunOptions = {}): Promise<CommandResult> {
    return this.run(["up", "--yes", "--skip-preview"], options);
  }

  /** `pulumi preview`, by default with `--expect-no-changes` (fails if the program would change anything). */
  preview(options: RunOptions & { expectNoChanges?: boolean } = {}): Promise<CommandResult> {
    const { expectNoChanges = true, ...runOptions } = options;
    return this.run(["preview", ...(expectNoChanges ? ["--expect-no-changes"] : [])], runOptions);
  }

  /** `pulumi refresh --yes`. */
  refresh(options: RunOptions = {}): Promise<CommandResult> {
    return this.run(["refresh", "--yes"], options);
  }

  /** `pulumi destroy --yes`. */
  destroy(options: RunOptions = {}): Promise<CommandResult> {
    return this.run(["destroy", "--yes"], options);
  }

  /** The stack outputs, secrets in plaintext (`pulumi stack output --json --show-secrets`). */
  async outputs(): Promise<Record<string, unknown>> {
    const result = await this.run(["stack", "output", "--json", "--show-secrets"]);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  }

  /** The raw state (`pulumi stack export`, secrets still encrypted), e.g. to check what got serialized. */
  async exportState(): Promise<{ state: StackState; text: string }> {
    const result = await this.run(["stack", "export"]);
    return { state: JSON.parse(result.stdout) as StackState, text: result.stdout };
  }

  /** `pulumi stack import` of `state` (e.g. an exported state rewritten into an older release's form). */
  async importState(state: StackState): Promise<void> {
    const file = path.join(this.stateDir, `import-${randomBytes(4).toString("hex")}.json`);
    fs.writeFileSync(file, JSON.stringify(state));
    await this.run(["stack", "import", "--file", file]);
  }

  /**
   * Removes the stack (`stack rm --yes --force`: resources still in it are forgotten, so destroy first when they
   * matter), its Pulumi.<stack>.yaml, and the temporary backend. Safe to call twice; never throws.
   */
  async cleanup(): Promise<void> {
    if (this.removed) return;
    this.removed = true;
    try {
      await this.run(["stack", "rm", "--yes", "--force"], { timeoutMs: 60_000, allowFailure: true });
    } catch {
      // Best effort: the temporary backend goes away below anyway.
    }
    fs.rmSync(path.join(this.programDir, `Pulumi.${this.name}.yaml`), { force: true });
    fs.rmSync(this.stateDir, { recursive: true, force: true });
  }
}

/**
 * Copies a fake package (a directory with package.json) into `<programDir>/node_modules/<name>` as a real
 * directory, so code in it is serialized by reference, as an installed package's would be.
 */
export function installFakePackage(programDir: string, packageDir: string): string {
  const source = path.resolve(repoRoot, packageDir);
  const manifest = JSON.parse(fs.readFileSync(path.join(source, "package.json"), "utf8")) as { name: string };
  const target = path.join(path.resolve(repoRoot, programDir), "node_modules", manifest.name);
  fs.rmSync(target, { recursive: true, force: true });
  fs.cpSync(source, target, { recursive: true });
  return target;
}

/**
 * Installs this package into a program as a user would (scripts/install-local.sh): a real copy of package.json
 * and dist/ under `<programDir>/node_modules/pulumi-platform`. `build: false` uses dist/ as it is; otherwise it is
 * built first, once per run (buildOncePerRun).
 */
export function installLocalPackage(programDir: string, options: { build?: boolean } = {}): void {
  if (options.build !== false) buildOncePerRun();
  const args = [
    path.join(repoRoot, "scripts", "install-local.sh"),
    "--no-build",
    path.resolve(repoRoot, programDir),
  ];
  execFileSync("bash", args, { stdio: ["ignore", "inherit", "inherit"], timeout: 5 * 60_000 });
}

/**
 * Set-up that several e2e files repeat, done once per run of the suite: scripts/test.sh gives the e2e run a
 * directory (PULUMI_PLATFORM_E2E_RUN_DIR) that lives as long as the run, where each piece of set-up leaves what it
 * made (a path, or a word) under its name. The sources do not change during a run, so what one file built serves
 * the next. A file run alone, with no such directory, does the set-up each time it asks.
 */
export function oncePerRun(name: string, make: () => string): string {
  const dir = process.env["PULUMI_PLATFORM_E2E_RUN_DIR"];
  if (!dir) return make();
  const record = path.join(dir, `${name}.txt`);
  if (fs.existsSync(record)) return fs.readFileSync(record, "utf8");
  const made = make();
  fs.writeFileSync(record, made);
  return made;
}

/**
 * `npm run build` (dist/, which the installed package, the CLIs and the plugin run, and the policy pack's bundle),
 * once per run; not at all when PULUMI_PLATFORM_BUILT is 1 (scripts/test.sh has just built).
 */
export function buildOncePerRun(): void {
  if (process.env["PULUMI_PLATFORM_BUILT"] === "1") return;
  oncePerRun("build", () => {
    execFileSync("npm", ["run", "--silent", "build"], {
      cwd: repoRoot,
      stdio: ["ignore", "inherit", "inherit"],
      timeout: 5 * 60_000,
    });
    return "built";
  });
}

/**
 * After a file's tests: destroys what the stack still holds (a failure is allowed), removes the stack, then stops
 * the emulator; each only where the set-up got as far as making it.
 */
export async function tearDown(
  stack: PulumiStack | undefined,
  emulator?: { close(): Promise<void> } | undefined,
): Promise<void> {
  await stack?.destroy({ allowFailure: true });
  await stack?.cleanup();
  await emulator?.close();
}

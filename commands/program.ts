/**
 * How the project's command-line tools (`platform-access`, `platform-import`, `platform-emulator`) declare and read
 * their command lines: each tool is one `ToolSpec`, a plain table of its commands, their arguments and options
 * (with each option's help and default), and that table is the one fact behind the parser (commander, built here
 * from it), `--help`, and the options tables of the docs (scripts/generate-cli-docs.js). Adding an option is one
 * entry in its command's table; its command's module reads it by name.
 *
 * Loaded before anything else a tool does, so it stays light: commander (no dependencies of its own, a few ms), the
 * package's version (../sdk/version, node:fs only) and nothing that talks to an API.
 */
import { Command, CommanderError, Option } from "commander";
import { SDK_VERSION } from "../sdk/version";
import { Refusal } from "./command";

/** One option of a command. */
export interface OptionSpec {
  /** The long name, e.g. `--unused-after`. */
  name: `--${string}`;
  /** A one-letter alias, e.g. `-o`. */
  short?: `-${string}`;
  /** What its value is called in the usage (`FILE`); absent for a flag that takes no value. */
  value?: string;
  /** May be given more than once (every value kept, in order); otherwise a second one is refused. */
  repeatable?: boolean;
  /** The value it has when not given, as a person types it (shown in the help and the docs). */
  default?: string;
  /** What it means when not given, in words, where that is no value a person types (`now`, `standard output`). */
  defaultSaid?: string;
  /** What it does, one sentence or two. */
  help: string;
}

/** A positional argument, as the usage says it (`<group uid>` required, `[FILE]` optional). */
export interface ArgumentSpec {
  name: string;
  help: string;
}

/** One command of a tool (or the tool itself, when it runs without one). */
export interface CommandSpec {
  /** The command's name; `""` for what the tool does without a command. */
  name: string;
  /** One line: what it does. */
  summary: string;
  args: readonly ArgumentSpec[];
  /** What is said when the positional arguments do not fit them, e.g. `review needs one group uid`. */
  argsRule: string;
  options: readonly OptionSpec[];
}

export interface ToolSpec {
  /** The command people type, e.g. `platform-access`. */
  name: string;
  summary: string;
  /** What the tool does when no command is given (platform-import's walk, the emulator); else a command is needed. */
  root?: CommandSpec;
  commands: readonly CommandSpec[];
  /** The exit codes, one line each, printed at the end of the tool's help. */
  exitCodes: readonly string[];
}

/** The command line as parsed: the command chosen, its positional arguments and the options given. */
export class Parsed {
  constructor(
    readonly spec: CommandSpec,
    readonly args: readonly string[],
    /** The options given, by long name, each with its values in order (`""` for a flag). */
    readonly given: ReadonlyMap<string, readonly string[]>,
  ) {}

  /** Whether the option was given. */
  has(name: `--${string}`): boolean {
    return this.given.has(name);
  }

  /** The option's value, else its default. */
  value(name: `--${string}`): string | undefined {
    return this.given.get(name)?.[0] ?? this.optionSpec(name).default;
  }

  /** Every value of a repeatable option (none when not given). */
  values(name: `--${string}`): readonly string[] {
    return this.given.get(name) ?? [];
  }

  private optionSpec(name: string): OptionSpec {
    const spec = this.spec.options.find((o) => o.name === name);
    if (spec === undefined) throw new Error(`${this.spec.name || "the tool"} has no option ${name}`);
    return spec;
  }
}

/** Where the parser prints help and version: stdout; and a line for stderr (the help given with a usage error). */
export interface ProgramOutput {
  stdout: (text: string) => void;
  stderr: (line: string) => void;
}

/**
 * A usage error: one line, said the tool's way (`unknown option --sinc (did you mean --since?)`), refused as any bad
 * input is (exit code 1).
 */
export class UsageError extends Refusal {
  override name = "UsageError";
}

/** An option's help as the help and the docs print it: what it does, then its default and whether it repeats. */
export function optionHelp(option: OptionSpec): string {
  const fallback = defaultOf(option);
  return `${option.help}${fallback !== undefined ? ` (default: ${fallback})` : ""}${
    option.repeatable === true ? " (repeatable)" : ""
  }`;
}

/** What an option is when not given: its default value, else its default in words. */
export function defaultOf(option: OptionSpec): string | undefined {
  return option.default ?? option.defaultSaid;
}

/** The option as the usage writes it: `-o, --out <FILE>`. */
export function optionFlags(option: OptionSpec): string {
  return `${option.short !== undefined ? `${option.short}, ` : ""}${option.name}${
    option.value !== undefined ? ` <${option.value}>` : ""
  }`;
}

/** The command's one-line usage: `platform-access review <group uid> [options]`. */
export function usageLine(tool: ToolSpec, command: CommandSpec): string {
  return [
    tool.name,
    command.name,
    ...command.args.map((a) => a.name),
    command.options.length > 0 ? "[options]" : "",
  ]
    .filter((part) => part !== "")
    .join(" ");
}

/** `--backend needs a URL`. */
function valueNeeded(option: OptionSpec): string {
  return `${option.name} needs a${/^[AEIO]/.test(option.value ?? "") ? "n" : ""} ${option.value ?? "value"}`;
}

/** Commander's error message as one line in the tools' words. */
function usageMessage(error: CommanderError, spec: CommandSpec | undefined): string {
  if (
    spec !== undefined &&
    (error.code === "commander.missingArgument" || error.code === "commander.excessArguments")
  )
    return spec.argsRule;
  const flag = /'(?:-\w, )?(--[^'\s]+)/.exec(error.message)?.[1];
  const missing = spec?.options.find((o) => o.name === flag);
  if (error.code === "commander.optionMissingArgument" && missing !== undefined) return valueNeeded(missing);
  // `--json=x`: commander takes the whole word for an unknown option.
  const [name, value] = flag?.split("=") ?? [];
  if (
    error.code === "commander.unknownOption" &&
    value !== undefined &&
    spec?.options.some((o) => o.name === name)
  )
    return `${name} takes no value`;
  return error.message
    .replace(/^error: /, "")
    .replace(/'([^']*)'/g, "$1")
    .replace(/\n\(Did you mean (.*)\?\)/, " (did you mean $1?)")
    .replace(/\s*\n\s*/g, " ");
}

/** The values of one option as commander hands them over: refused when empty, or given twice when it may not be. */
function collector(option: OptionSpec): (value: string, previous: string[] | undefined) => string[] {
  return (value, previous) => {
    if (value === "") throw new UsageError(valueNeeded(option));
    if (previous !== undefined && option.repeatable !== true)
      throw new UsageError(`${option.name} is given more than once`);
    return [...(previous ?? []), value];
  };
}

/** Declares one command's arguments and options on a commander command; its action records the parse. */
function declare(command: Command, spec: CommandSpec, chosen: { parsed?: Parsed }): void {
  command.description(spec.summary);
  for (const arg of spec.args) command.argument(arg.name, arg.help);
  for (const o of spec.options) {
    const option = new Option(optionFlags(o), optionHelp(o));
    if (o.value !== undefined) option.argParser(collector(o));
    command.addOption(option);
  }
  command.action(() => {
    const given = new Map<string, string[]>();
    for (const o of spec.options) {
      const value = command.getOptionValue(new Option(optionFlags(o)).attributeName()) as
        string[] | boolean | undefined;
      if (value === true) given.set(o.name, [""]);
      else if (Array.isArray(value)) given.set(o.name, value);
    }
    chosen.parsed = new Parsed(
      spec,
      command.args.filter((a) => a !== undefined),
      given,
    );
  });
}

/** The commander program of a tool, printing through `out`. */
function program(tool: ToolSpec, out: ProgramOutput, chosen: { parsed?: Parsed }): Command {
  const exitCodes = `\nExit codes:\n${tool.exitCodes.map((line) => `  ${line}`).join("\n")}\n`;
  const root = new Command(tool.name)
    .version(SDK_VERSION, "-V, --version", "print the version")
    .helpOption("-h, --help", "print this help")
    .exitOverride()
    // A command's options after its name are its own (platform-import's root and `report` share --out).
    .enablePositionalOptions()
    .showSuggestionAfterError(true)
    .configureHelp({ helpWidth: 110 })
    .configureOutput({
      writeOut: (text) => out.stdout(text),
      writeErr: (text) => out.stderr(text.replace(/\n$/, "")),
      outputError: () => undefined,
    })
    .addHelpText("after", exitCodes);
  if (tool.commands.length > 0) root.helpCommand("help [command]", "print the help of a command");
  else root.helpCommand(false);
  if (tool.root !== undefined) declare(root, tool.root, chosen);
  root.description(tool.root !== undefined ? `${tool.summary}\n\n${tool.root.summary}` : tool.summary);
  for (const spec of tool.commands)
    declare(
      root.command(spec.name).helpOption("-h, --help", "print this help").addHelpText("after", exitCodes),
      spec,
      chosen,
    );
  return root;
}

/**
 * Reads `argv` (without node and the script). Returns what to run, or the exit code when the parser answered itself
 * (`--help`, `--version`: 0; the help asked for by giving no command: 1). A usage error is thrown as a UsageError
 * of one line.
 */
export function parseCommandLine(
  tool: ToolSpec,
  argv: readonly string[],
  out: ProgramOutput,
): Parsed | number {
  const chosen: { parsed?: Parsed } = {};
  const commander = program(tool, out, chosen);
  try {
    commander.parse([...argv], { from: "user" });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    refuseMisspeltCommand(tool, argv);
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return 0;
    // `help [command]` (0), or no command given, which prints the help on stderr (1).
    if (error.code === "commander.help") return error.exitCode === 0 ? 0 : 1;
    const name = argv.find((a) => !a.startsWith("-"));
    const spec =
      tool.commands.find((c) => c.name === name) ?? (tool.root !== undefined ? tool.root : undefined);
    throw new UsageError(usageMessage(error, spec));
  }
  if (chosen.parsed === undefined) throw new UsageError(`give a command: ${commandNames(tool)}`);
  if (chosen.parsed.spec === tool.root) refuseMisspeltCommand(tool, argv);
  return chosen.parsed;
}

/**
 * A tool whose root takes a positional argument (platform-import's group uid) would take a misspelt command for it:
 * the first positional word near a command's name is refused as that command misspelt.
 */
function refuseMisspeltCommand(tool: ToolSpec, argv: readonly string[]): void {
  if (tool.root === undefined || tool.root.args.length === 0) return;
  const word = argv.find((a) => !a.startsWith("-"));
  if (word === undefined || tool.commands.some((c) => c.name === word)) return;
  const nearest = nearestCommand(tool, word);
  if (nearest !== undefined) throw new UsageError(`unknown command ${word} (did you mean ${nearest}?)`);
}

function commandNames(tool: ToolSpec): string {
  return tool.commands.map((c) => c.name).join(", ");
}

/** The command nearest to `word` when `word` is a misspelt command (at most a third of its letters off). */
function nearestCommand(tool: ToolSpec, word: string): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const { name } of tool.commands) {
    const distance = editDistance(word.toLowerCase(), name);
    if (
      distance <= Math.max(1, Math.floor(name.length / 3)) &&
      (best === undefined || distance < best.distance)
    )
      best = { name, distance };
  }
  return best?.name;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}

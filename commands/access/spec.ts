/**
 * `platform-access`'s command line, said once: its commands, their arguments and options with their help and
 * defaults. The parser (../program), `--help` and the options tables of docs/access-review.md
 * (scripts/generate-cli-docs.js) are made from it; each command's module (./cli's COMMANDS) reads its options by
 * name. Loaded for `--help`, so it imports nothing but types.
 */
import type { OptionSpec, ToolSpec } from "../program";

/** The exit code of --fail-on-privileged-workload and --fail-on-new-privileged when they find something. */
export const EXIT_PRIVILEGED = 2;

const json: OptionSpec = { name: "--json", help: "print JSON instead of text" };
const csv: OptionSpec = { name: "--csv", help: "print CSV instead of text (one of --json, --csv)" };
const markdown: OptionSpec = {
  name: "--markdown",
  help: "print GitHub-flavoured Markdown, for a CI job's summary",
};
const expand: OptionSpec = {
  name: "--expand",
  help: "with --json or --csv, also every (identity, capability, group) the bindings imply (large)",
};

export const ACCESS_TOOL: ToolSpec = {
  name: "platform-access",
  summary:
    "Who can do what, where, and why: reads a live organization with the caller's own credentials (PLATFORM_API_URL, " +
    "PLATFORM_TOKEN or PLATFORM_IDENTITY with PLATFORM_IDENTITY_TOKEN[_FILE]) and answers by name.",
  commands: [
    {
      name: "review",
      summary: "every identity, role binding and role under a group, each grant said once where it is bound",
      args: [{ name: "<group uid>", help: "the organization or folder to review" }],
      argsRule: "review needs one group uid",
      options: [
        {
          name: "--backend",
          value: "URL",
          help: "mark what no stack of this backend manages (read through the engine)",
        },
        {
          name: "--stacks",
          value: "PATTERN",
          repeatable: true,
          help: "the stacks to read, e.g. '*/prod' (of --backend, or of the engine's current backend)",
        },
        {
          name: "--state",
          value: "FILE",
          repeatable: true,
          help: "a stack's state (pulumi stack export) to mark what it manages, read offline",
        },
        {
          name: "--unused-after",
          value: "DURATION",
          default: "90d",
          help: "a workload identity with no token exchange for this long is unused (days 90d, or hours 36h)",
        },
        {
          name: "--as-of",
          value: "TIME",
          defaultSaid: "now",
          help: "review as at this RFC 3339 time",
        },
        {
          name: "--since",
          value: "PREVIOUS.json",
          help: "also say what changed since an earlier review --json of the same group",
        },
        json,
        { name: "--csv", help: "print CSV: the role bindings (with --since, the changes)" },
        markdown,
        {
          name: "--html",
          value: "FILE",
          help: "write one self-contained page to FILE (one of --json, --csv, --markdown, --html)",
        },
        expand,
        {
          name: "--fail-on-privileged-workload",
          help: "exit 2 when a workload identity, or an unmanaged one, holds a privileged capability",
        },
        {
          name: "--fail-on-new-privileged",
          help: "with --since, exit 2 when a privileged capability is newly held",
        },
      ],
    },
    {
      name: "who-can",
      summary: "who holds a capability on a group, and through which binding",
      args: [{ name: "<CAPABILITY>", help: "a capability, e.g. CAP_IAM_GROUPS_LIST" }],
      argsRule: "who-can needs one capability",
      options: [{ name: "--on", value: "GROUP_UID", help: "the group (required)" }, json, csv, markdown],
    },
    {
      name: "what-can",
      summary: "what an identity holds, where, and through which binding",
      args: [{ name: "<identity uid>", help: "a user or a workload identity" }],
      argsRule: "what-can needs one identity uid",
      options: [
        {
          name: "--in",
          value: "GROUP_UID",
          defaultSaid:
            "a workload identity's organization; for a person, every organization the caller may list",
          help: "the group to answer for",
        },
        json,
        csv,
        markdown,
        expand,
      ],
    },
    {
      name: "least-privilege",
      summary: "the smallest role a stack's updates need, from its state",
      args: [],
      argsRule: "least-privilege takes no argument",
      options: [
        {
          name: "--state",
          value: "FILE",
          repeatable: true,
          help: "a stack's state (pulumi stack export; required)",
        },
        {
          name: "--identity",
          value: "UID",
          defaultSaid: "a config value",
          help: "the identity to bind the role to in the printed program",
        },
        {
          name: "--need",
          value: "CAP@GROUP",
          repeatable: true,
          help: "a capability the state does not show, on a group",
        },
        { name: "--with-update", help: "also the *_UPDATE capabilities, for changes of existing resources" },
        {
          name: "--format",
          value: "FORMAT",
          default: "yaml+typescript",
          help: "yaml, typescript or json",
        },
      ],
    },
    {
      name: "plan",
      summary: "what an update changes in who can do what, from pulumi preview --json",
      args: [{ name: "[FILE]", help: "the output of pulumi preview --json (default: -, standard input)" }],
      argsRule: "plan takes one file (or - for standard input)",
      options: [
        { name: "--markdown", help: "print Markdown, for a pull request's comment" },
        { name: "--offline", help: "read nothing: say what the plan alone tells" },
        { name: "--expand", help: "list each role said by its name capability by capability" },
      ],
    },
  ],
  exitCodes: [
    "0  done (nothing the --fail-on-* options given look for)",
    "1  refused: one line on stderr, nothing written (bad input, an API failure)",
    `${EXIT_PRIVILEGED}  --fail-on-privileged-workload or --fail-on-new-privileged found something`,
  ],
};

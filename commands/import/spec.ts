/**
 * `platform-import`'s command line, said once: what it does without a command (the walk of a group, or of a
 * Terraform state), its commands `report` and `load`, their arguments and options with their help and defaults. The
 * parser (../program), `--help` and the options tables of docs/adopting.md (scripts/generate-cli-docs.js) are made
 * from it. Loaded for `--help`, so it imports nothing heavier than the list of binding forms.
 */
import type { OptionSpec, ToolSpec } from "../program";
import { BINDINGS_FORMS } from "./bindings";

/** The exit code of a report that finds an object no stack manages, a managed one gone, or a stack it cannot read. */
export const EXIT_UNMANAGED = 2;

/** The exit code of a report that finds two resources managing the same thing (it wins over EXIT_UNMANAGED). */
export const EXIT_CONFLICT = 3;

const bindings: OptionSpec = {
  name: "--bindings",
  value: "FORM",
  default: BINDINGS_FORMS[0],
  help: `the role bindings as one RoleBinding each, one GroupAccess per group or one IdentityAccess per identity: ${BINDINGS_FORMS.join(", ")}`,
};
const out: OptionSpec = {
  name: "--out",
  short: "-o",
  value: "FILE",
  defaultSaid: "standard output",
  help: "write the import document to FILE, whole and only on success",
};
const stateOut: OptionSpec = {
  name: "--state-out",
  value: "FILE",
  help: "with --out, also write the adopted resources' state, for platform-import load (state-first adoption)",
};

export const IMPORT_TOOL: ToolSpec = {
  name: "platform-import",
  summary:
    "Writes a pulumi import --file document of everything under a group (read with the caller's credentials: " +
    "PLATFORM_API_URL, PLATFORM_TOKEN or PLATFORM_IDENTITY with PLATFORM_IDENTITY_TOKEN[_FILE]), or of a Terraform " +
    "state of the platform's Terraform provider.",
  root: {
    name: "",
    summary: "Without a command: the import document of a group (or of --terraform-state).",
    args: [{ name: "[group uid]", help: "the organization or folder to import (or give --terraform-state)" }],
    argsRule: "one group uid only",
    options: [
      {
        name: "--terraform-state",
        value: "FILE",
        help: "read a Terraform state (format version 4) instead of the API, offline",
      },
      {
        name: "--addresses",
        help: "with --terraform-state, print the mapped Terraform addresses, one a line (for terraform state rm)",
      },
      bindings,
      out,
      stateOut,
    ],
  },
  commands: [
    {
      name: "report",
      summary: "what no stack manages under a group, what stacks manage that is gone, coverage and conflicts",
      args: [{ name: "<group uid>", help: "the organization or folder to compare" }],
      argsRule: "report needs a group uid",
      options: [
        {
          name: "--backend",
          value: "URL",
          defaultSaid: "the engine's current backend, when no --state is given",
          help: "read every stack of this backend through the engine",
        },
        {
          name: "--stacks",
          value: "PATTERN",
          repeatable: true,
          help: "only the stacks matching PATTERN, e.g. '*/prod'",
        },
        {
          name: "--state",
          value: "FILE",
          repeatable: true,
          help: "a stack's state exported by hand (pulumi stack export), read offline",
        },
        { name: "--json", help: "print the report as JSON instead of text" },
        bindings,
        {
          ...out,
          defaultSaid: undefined,
          help: "write the import document of exactly the unmanaged objects to FILE",
        },
        stateOut,
      ],
    },
    {
      name: "load",
      summary: "loads an adoption file (--state-out) into the stack, with one pulumi stack import",
      args: [{ name: "<FILE>", help: "the adoption file written by --state-out" }],
      argsRule: "load needs the adoption file (platform-import --state-out)",
      options: [
        {
          name: "--stack",
          short: "-s",
          value: "NAME",
          defaultSaid: "the project's current stack",
          help: "the stack to load into",
        },
      ],
    },
  ],
  exitCodes: [
    "0  done (report: every object managed, none gone, every stack read)",
    "1  refused: one line on stderr, nothing written (bad input, an API failure)",
    `${EXIT_UNMANAGED}  report: an object no stack manages, a managed one gone, or a stack not read`,
    `${EXIT_CONFLICT}  report: two resources manage the same thing`,
  ],
};

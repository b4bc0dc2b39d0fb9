#!/usr/bin/env node
/**
 * Writes the command-line tools' options into their docs, from the tables the parsers are built from (the one
 * fact: commands/access/spec.ts, commands/import/spec.ts, emulator/cli-spec.ts, read by commands/program.ts), between
 * `<!-- options:<tool> -->` and `<!-- /options:<tool> -->`:
 *   - docs/access-review.md: platform-access;
 *   - docs/adopting.md: platform-import;
 *   - emulator/README.md: platform-emulator.
 * Each command's usage line, then a table of its options: the option, its default, what it does. `--help` prints
 * the same (test/commands/cli.test.ts checks the two agree).
 *
 *   node scripts/generate-cli-docs.js           # rewrites them
 *   node scripts/generate-cli-docs.js --check   # exits 1 if any differs from what it would write
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const prettier = require("prettier");

const root = path.resolve(__dirname, "..");

/** The specs are TypeScript modules that import nothing heavy: read through ts-node, never a stale build. */
function loadSource(file) {
  require("ts-node").register({ transpileOnly: true, project: path.join(root, "tsconfig.json") });
  return require(path.join(root, file));
}

const TOOLS = [
  { doc: "docs/access-review.md", spec: "commands/access/spec.ts", name: "ACCESS_TOOL" },
  { doc: "docs/adopting.md", spec: "commands/import/spec.ts", name: "IMPORT_TOOL" },
  { doc: "emulator/README.md", spec: "emulator/cli-spec.ts", name: "EMULATOR_TOOL" },
];

const cell = (text) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** One command's usage line and options table. */
function commandSection(program, tool, command) {
  const rows = command.options.map(
    (o) =>
      `| \`${program.optionFlags(o)}\` | ${o.default !== undefined ? `\`${o.default}\`` : cell(o.defaultSaid ?? "")} | ${cell(
        o.repeatable ? `${o.help} (repeatable)` : o.help,
      )} |`,
  );
  return [
    `\`${program.usageLine(tool, command)}\`: ${cell(command.summary)}`,
    "",
    ...(rows.length > 0 ? ["| option | default | what it does |", "| --- | --- | --- |", ...rows, ""] : []),
  ];
}

/** Every command of the tool (what it does without one first), then its exit codes. */
function toolSection(program, tool, spec) {
  return [
    `<!-- generated from ${spec} by \`npm run generate\`: edit it there -->`,
    "",
    ...(tool.root !== undefined ? commandSection(program, tool, tool.root) : []),
    ...tool.commands.flatMap((c) => commandSection(program, tool, c)),
    tool.commands.length > 0
      ? `\`${tool.name} --help\` and \`${tool.name} <command> --help\` print the same; \`--version\` the package's version.`
      : `\`${tool.name} --help\` prints the same; \`--version\` the package's version.`,
    "",
  ].join("\n");
}

function replaceBetween(text, file, name, body) {
  const start = `<!-- options:${name} -->`;
  const end = `<!-- /options:${name} -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${file} has no ${start} ... ${end}`);
  return `${text.slice(0, from + start.length)}\n\n${body}\n${text.slice(to)}`;
}

async function main() {
  const program = loadSource("commands/program.ts");
  const check = process.argv.includes("--check");
  const stale = [];
  for (const { doc, spec, name } of TOOLS) {
    const tool = loadSource(spec)[name];
    const file = path.join(root, doc);
    const before = fs.readFileSync(file, "utf8");
    const text = replaceBetween(before, doc, tool.name, toolSection(program, tool, spec));
    const config = (await prettier.resolveConfig(file)) ?? {};
    const formatted = await prettier.format(text, { ...config, parser: "markdown" });
    if (formatted === before) continue;
    stale.push(doc);
    if (!check) fs.writeFileSync(file, formatted);
  }
  if (check && stale.length > 0) {
    console.error(`out of date: ${stale.join(", ")}; run \`npm run generate\``);
    process.exit(1);
  }
}

/** What this generator writes, relative to the repository. */
const outputs = () => TOOLS.map((tool) => tool.doc);

if (require.main === module)
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(2);
  });

module.exports = { outputs };

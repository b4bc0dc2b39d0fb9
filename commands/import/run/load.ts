/**
 * `platform-import load FILE [--stack NAME]`: the adoption file (--state-out) merged into the stack with one
 * `pulumi stack import` (../load).
 */
import { readText } from "../../command";
import { pulumiCli } from "../../stacks";
import { loadAdoption, readAdoptionFile } from "../load";
import type { RunCommand } from "./shared";

export const run: RunCommand = async (p, io, connect) => {
  const file = p.args[0]!;
  const stack = p.value("--stack");
  const adoption = readAdoptionFile(readText(file), file);
  const cwd = io.cwd ?? process.cwd();
  const engine = io.engine ?? ((env) => pulumiCli(cwd, env));
  const started = Date.now();
  const result = await loadAdoption(adoption, {
    pulumi: engine(io.env),
    cwd,
    client: connect(),
    progress: (line) => io.stderr(line),
    ...(stack !== undefined ? { stack } : {}),
  });
  io.stderr(
    `loaded ${result.added} resources into the stack (${result.total} in all` +
      `${result.providerAdded ? ", with the default platform provider" : ""}; ${result.calls} API calls, ` +
      `${Date.now() - started} ms): now pulumi import --file <the document> --preview-only --out <program> ` +
      `prints the program, and pulumi preview --expect-no-changes proves it`,
  );
  return 0;
};

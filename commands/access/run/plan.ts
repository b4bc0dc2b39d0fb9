/**
 * `platform-access plan [FILE|-]`: the command line of ../plan-command, which says what an update changes in who
 * can do what.
 */
import { runPlan } from "../plan-command";
import type { RunCommand } from "./shared";

export const run: RunCommand = (p, io, connect) =>
  runPlan(
    {
      markdown: p.has("--markdown"),
      offline: p.has("--offline"),
      expand: p.has("--expand"),
      source: p.args[0] ?? "-",
    },
    io,
    connect,
  );

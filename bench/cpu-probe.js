// Loaded into every Node.js process of a benchmarked `pulumi` command (NODE_OPTIONS=--require, set by
// bench/stack.ts): when the process ends, appends one JSON line with its CPU time to $BENCH_CPU_LOG, so the bench can
// split a command's CPU between the program, the provider and the rest (the CLI and its Go plugins).
//
// The engine stops plugins with SIGINT (then SIGKILL after a grace period), which skips Node's 'exit' event: the
// signal handlers record the figure first. Plain JavaScript, no dependencies: it runs before anything else loads.
"use strict";
const fs = require("node:fs");

const log = process.env.BENCH_CPU_LOG;
if (log) {
  const args = process.argv.slice(1).join(" ");
  const role = /dynamic-provider/.test(args)
    ? "provider"
    : /cmd[/\\]run/.test(args)
      ? "program"
      : /pulumi-resource-platform/.test(args)
        ? "plugin"
        : "other";
  let written = false;
  const record = () => {
    if (written) return;
    written = true;
    const { user, system } = process.cpuUsage(); // since the process started
    const line = JSON.stringify({ pid: process.pid, role, user: user / 1e6, system: system / 1e6 });
    try {
      fs.appendFileSync(log, `${line}\n`);
    } catch {
      // The bench is gone: nothing to report to.
    }
  };
  process.on("exit", record);
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, () => {
      record();
      process.exit(signal === "SIGINT" ? 130 : 143);
    });
  }
}

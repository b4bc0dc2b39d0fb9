// Loaded with `node --require` into a command-line tool's process by test/commands/cli.test.ts: at exit, writes
// every file the process loaded (one a line) to the file named by RECORD_MODULES_TO.
"use strict";
const fs = require("node:fs");

process.on("exit", () => {
  fs.writeFileSync(process.env.RECORD_MODULES_TO, Object.keys(require.cache).join("\n"));
});

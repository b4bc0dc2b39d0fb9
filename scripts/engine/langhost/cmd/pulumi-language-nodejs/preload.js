// Preloaded into every Pulumi program by pulumi-platform's language host (NODE_OPTIONS=--require ...), which
// installs it beside the host's binary as pulumi-language-nodejs-preload.js.
//
// Works around a Node.js 20 bug: util.inspect(error, { colors: true }) runs for ~40 s and exhausts memory
// ("Invalid string length") when a stack frame points at `node_modules/@scope/<file>` with no package segment,
// which is exactly what @pulumi/pulumi's source maps produce (e.g. node_modules/@pulumi/config.ts). The Node SDK's
// cmd/run inspects every uncaught program error that way, so without this every failing program took ~45 s to
// report. Colours are of no use there (the text goes to the engine's log), so errors are inspected without them.
"use strict";
const util = require("util");

util.inspect = new Proxy(util.inspect, {
  apply(inspect, thisArg, args) {
    const [value, options] = args;
    if (value instanceof Error && options !== null && typeof options === "object" && options.colors) {
      return Reflect.apply(inspect, thisArg, [value, { ...options, colors: false }, ...args.slice(2)]);
    }
    return Reflect.apply(inspect, thisArg, args);
  },
});

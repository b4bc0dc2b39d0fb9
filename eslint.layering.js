// The floors of the house and what each may import, checked by `npm run lint` (eslint.config.js turns this table into
// ESLint's own no-restricted-imports, per folder). Read from the import graph of the tree: the SDK is the ground
// floor, loaded by everything; the provider and the emulator stand on it, side by side; the command-line tools stand
// on the SDK and the provider; the plugin on the provider; the policy pack borrows a few modules; the benchmarks and
// the tests may import anything.
//
// Each rule: the folder it governs (and every folder below it), the folders or modules it may not import, and the
// modules inside those it may (`except`). A folder never forbids itself: `commands`'s rule keeps `commands/access` and
// `commands/import` apart, and the shared modules of `commands/` out of both.

/** Every top-level folder of the repository a module could import from. */
const EVERYTHING = [
  "sdk",
  "provider",
  "emulator",
  "commands",
  "plugin",
  "policy",
  "bench",
  "test",
  "scripts",
  "examples",
];

const but = (...allowed) => EVERYTHING.filter((floor) => !allowed.includes(floor));

/** @type {{ from: string; forbid: string[]; except?: string[]; why: string }[]} */
const LAYERS = [
  { from: "sdk", forbid: but("sdk"), why: "the SDK is the ground floor: every other floor loads it" },
  {
    from: "sdk/schemas",
    forbid: ["sdk/resources", "sdk/client", "sdk/core", "sdk/access-model", "sdk/words"],
    why: "the wire schemas are shared by client, emulator and provider, and know nothing of the client",
  },
  { from: "provider", forbid: but("sdk", "provider"), why: "the provider stands on the SDK alone" },
  {
    from: "provider/core",
    forbid: ["provider/iam", "provider/registry", "provider/vulnerabilities", "provider/catalogue"],
    why: "the provider's core serves every module of resources and knows none",
  },
  {
    from: "provider/iam",
    forbid: ["provider/registry", "provider/vulnerabilities", "provider/catalogue"],
    why: "a module of resources stands on the core, beside the others",
  },
  {
    from: "provider/registry",
    forbid: ["provider/iam", "provider/vulnerabilities", "provider/catalogue"],
    why: "a module of resources stands on the core, beside the others",
  },
  {
    from: "provider/vulnerabilities",
    forbid: ["provider/iam", "provider/registry", "provider/catalogue"],
    why: "a module of resources stands on the core, beside the others",
  },
  {
    from: "emulator",
    forbid: but("sdk", "emulator", "commands"),
    why: "the emulator plays the service: it stands on the SDK's schemas and rules, never on the provider",
  },
  {
    from: "emulator",
    forbid: ["commands"],
    except: ["commands/program", "commands/command"],
    why: "the emulator's CLI shares the tools' parser and runner, nothing else of theirs",
  },
  {
    from: "emulator/routes",
    forbid: ["emulator/grpc"],
    why: "the REST routes are the emulator's one behaviour; the gRPC face stands on them",
  },
  {
    from: "commands",
    forbid: but("sdk", "provider", "commands"),
    why: "the tools stand on the SDK and the provider",
  },
  {
    from: "commands",
    forbid: ["commands/access", "commands/import"],
    why: "each tool stands on the shared modules of commands/, never on the other tool",
  },
  { from: "plugin", forbid: but("provider", "plugin"), why: "the plugin serves the provider's descriptions" },
  {
    from: "policy",
    forbid: but("sdk", "provider", "policy", "commands", "emulator"),
    why: "the policy pack is bundled alone: it borrows the access model and a few modules",
  },
  {
    from: "policy",
    forbid: ["commands", "emulator"],
    except: ["commands/access", "emulator/builtin-roles"],
    why: "the policy pack says the access plan as platform-access does, and knows the built-in roles",
  },
];

module.exports = { LAYERS, EVERYTHING };

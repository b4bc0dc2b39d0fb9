// Lint rules: typescript-eslint's recommended set over the TypeScript sources; compiled output, examples'
// installed packages and generated files (native-sdks/, written by `npm run sdks`) are not linted. Two rules of the
// house are checked here rather than said in comments: uids are taken apart only in sdk/uidp.ts, and each floor of
// the house imports only what eslint.layering.js allows it.
const tseslint = require("typescript-eslint");

const fs = require("node:fs");
const path = require("node:path");
const { LAYERS } = require("./eslint.layering");

/** The project's own floors: each folder's imports follow eslint.layering.js, and no uid is taken apart by hand. */
const FLOORS = ["sdk", "provider", "emulator", "commands", "plugin", "policy", "bench"];

/**
 * A uid taken apart by hand: `.split("/")`, `.indexOf("/")`, `.lastIndexOf("/")`, `.includes("/")` on anything, and
 * `.startsWith(`${x}/`)`. sdk/uidp.ts answers each (parentOf, rootOf, depthOf, segmentsOf, ancestorsOf, isRoot,
 * isBelow, ...); a string that is not a uid (a URL path, a stack's name) says so where it is split, in an
 * `eslint-disable-next-line no-restricted-syntax -- <what it is>` comment. Tests keep their own oracles.
 */
const UID_BY_HAND = [
  {
    selector:
      "CallExpression[callee.property.name=/^(split|indexOf|lastIndexOf|includes)$/][arguments.0.value='/']",
    message: "a uid is taken apart in sdk/uidp.ts only (parentOf, rootOf, depthOf, segmentsOf, isRoot, ...)",
  },
  {
    selector:
      "CallExpression[callee.property.name='startsWith'] > TemplateLiteral > TemplateElement[tail=true][value.raw='/']",
    message: "whether a uid is below another is sdk/uidp.ts's isBelow / isAtOrBelow",
  },
];

/** `folder` and every folder below it that holds sources. */
function foldersOf(folder) {
  const below = fs
    .readdirSync(path.join(__dirname, folder), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !["node_modules", "dist", "fixtures"].includes(entry.name))
    .flatMap((entry) => foldersOf(`${folder}/${entry.name}`));
  return [folder, ...below];
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const within = (folder, target) => folder === target || folder.startsWith(`${target}/`);

/**
 * What a module of `folder` may not import, as regular expressions over the specifier as written (relative, so
 * they are made per folder): each rule of eslint.layering.js governing the folder, each target it forbids that is
 * not the folder itself, less the target's exceptions.
 */
function forbiddenFrom(folder) {
  return LAYERS.filter((rule) => within(folder, rule.from)).flatMap((rule) =>
    rule.forbid
      .filter((target) => !within(folder, target))
      .map((target) => {
        const relative = path.posix.relative(folder, target);
        const specifier = relative.startsWith("..") ? relative : `./${relative}`;
        const allowed = (rule.except ?? [])
          .filter((module) => within(module, target))
          .map((module) => escape(module.slice(target.length)));
        const exceptions = allowed.length === 0 ? "" : `(?!(?:${allowed.join("|")})(?:/|$))`;
        return {
          regex: `^${escape(specifier)}${exceptions}(?:/|$)`,
          message: `${folder}/ may not import ${target}${allowed.length > 0 ? ` (but ${rule.except.join(", ")})` : ""}: ${rule.why} (eslint.layering.js)`,
        };
      }),
  );
}

/** The same, for `require("...")`, `import("...")` and `typeof import("...")`, which no-restricted-imports skips. */
function forbiddenCalls(patterns) {
  return patterns.flatMap(({ regex, message }) => {
    // esquery's regular expressions end at the first slash.
    const re = `/${regex.replace(/\//g, "\\x2F")}/`;
    return [
      { selector: `CallExpression[callee.name='require'][arguments.0.value=${re}]`, message },
      { selector: `ImportExpression[source.value=${re}]`, message },
      { selector: `TSImportType[argument.literal.value=${re}]`, message },
    ];
  });
}

/** One configuration per folder of the floors: its layering, and the uid rule (but in sdk/uidp.ts). */
const HOUSE_RULES = FLOORS.flatMap(foldersOf).flatMap((folder) => {
  const patterns = forbiddenFrom(folder);
  const calls = forbiddenCalls(patterns);
  const imports = patterns.length > 0 ? { "no-restricted-imports": ["error", { patterns }] } : {};
  const configs = [
    {
      files: [`${folder}/*.ts`],
      rules: { ...imports, "no-restricted-syntax": ["error", ...UID_BY_HAND, ...calls] },
    },
  ];
  if (folder === "sdk")
    configs.push({ files: ["sdk/uidp.ts"], rules: { "no-restricted-syntax": ["error", ...calls] } });
  return configs;
});

module.exports = tseslint.config(
  {
    ignores: [
      "dist/**",
      "node_modules/**",
      "examples/*/node_modules/**",
      "coverage/**",
      "**/*.js",
      "scripts/engine/**",
      "native-sdks/**",
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-require-imports": "off",
    },
  },
  ...HOUSE_RULES,
);

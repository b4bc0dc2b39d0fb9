// Lint rules: typescript-eslint's recommended set over the TypeScript sources; compiled output, examples'
// installed packages and generated files (native-sdks/, written by `npm run sdks`) are not linted. Two rules of the
// house are checked here rather than said in comments: uids are taken apart only in sdk/uidp.ts, and each floor of
// the house imports only the floors below it (./layering.js).
const tseslint = require("typescript-eslint");

/** The project's own floors, where a uid taken apart by hand is an error (tests keep their own oracles). */
const FLOORS = ["sdk", "provider", "emulator", "commands", "plugin", "policy", "bench"];

/**
 * A uid taken apart by hand: `.split("/")`, `.indexOf("/")`, `.lastIndexOf("/")`, `.includes("/")` on anything, and
 * `.startsWith(`${x}/`)`. sdk/uidp.ts answers each (parentOf, rootOf, depthOf, segmentsOf, ancestorsOf, isRoot,
 * isBelow, ...); a string that is not a uid (a URL path, a stack's name) says so where it is split, in an
 * `eslint-disable-next-line no-restricted-syntax -- <what it is>` comment.
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
  {
    files: FLOORS.map((floor) => `${floor}/**/*.ts`),
    ignores: ["sdk/uidp.ts", "**/*.generated.ts"],
    rules: { "no-restricted-syntax": ["error", ...UID_BY_HAND] },
  },
);

// Lint rules: typescript-eslint's recommended set over the TypeScript sources; compiled output, examples'
// installed packages and generated files (native-sdks/, written by `npm run sdks`) are not linted.
const tseslint = require("typescript-eslint");

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
);

/** Unit, contract and provider tests (fast, in process); the end-to-end suite is jest.e2e.config.js. */
module.exports = {
  displayName: "unit",
  preset: "ts-jest",
  testEnvironment: "node",
  rootDir: __dirname,
  roots: ["<rootDir>/test"],
  testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/e2e/"],
  modulePathIgnorePatterns: [
    "<rootDir>/test/e2e/fixtures/.*/node_modules/",
    "<rootDir>/examples/.*/node_modules/",
  ],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.json" }] },
};

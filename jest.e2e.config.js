/**
 * End-to-end suite: Pulumi programs under the real engine (test/e2e, see test/e2e/harness.ts). Needs the engine
 * (scripts/build-engine.sh; scripts/test.sh passes its bin dir in PULUMI_PLATFORM_ENGINE_BIN). Serial, because
 * every test drives CLI processes and the machine has two cores (scripts/test.sh runs it with --runInBand).
 * Timeouts are generous, because `pulumi up` of even a tiny program takes seconds: jest reads testTimeout only
 * globally, so scripts/test.sh passes --testTimeout and each e2e file calls jest.setTimeout.
 */
module.exports = {
  displayName: "e2e",
  preset: "ts-jest",
  testEnvironment: "node",
  rootDir: __dirname,
  roots: ["<rootDir>/test/e2e"],
  testMatch: ["<rootDir>/test/e2e/**/*.e2e.test.ts"],
  // Programs' installed packages (copied in by the tests) are not test sources.
  modulePathIgnorePatterns: [
    "<rootDir>/test/e2e/fixtures/.*/node_modules/",
    "<rootDir>/examples/.*/node_modules/",
  ],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.json" }] },
};

/** Unit, contract and provider tests; the end-to-end suite (test/e2e) has its own config. */
module.exports = {
  preset: "ts-jest",
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/e2e/"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.json", isolatedModules: true }] },
  testTimeout: 30000,
};

/**
 * `npx jest` runs both projects: unit/contract/provider tests and the end-to-end suite under the real engine.
 * Run one with `npx jest --selectProjects unit` (or e2e). scripts/test.sh (`npm test`) runs them one after
 * the other, e2e serially, and passes the timeouts on the command line (jest ignores testTimeout in projects).
 */
module.exports = {
  projects: ["<rootDir>/jest.unit.config.js", "<rootDir>/jest.e2e.config.js"],
};

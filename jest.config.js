/**
 * `npm test` runs both projects: unit/contract/provider tests and the end-to-end suite under the real engine.
 * Run one with `npx jest --selectProjects unit` (or e2e).
 */
module.exports = {
  projects: ["<rootDir>/jest.unit.config.js", "<rootDir>/jest.e2e.config.js"],
};

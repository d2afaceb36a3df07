import type { Config } from "jest";

/** ESM + ts-jest: sources are transpiled per file (type checking is `npm run typecheck`'s job). */
const config: Config = {
  testEnvironment: "node",
  extensionsToTreatAsEsm: [".ts"],
  roots: ["<rootDir>/tests"],
  testMatch: ["**/*.test.ts"],
  // The package's own entry, as the starter plugin imports it (at run time Node resolves it to dist/ by self-reference).
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1", "^a2a-router/eliza$": "<rootDir>/agents/eliza/index.ts" },
  transform: { "^.+\\.ts$": ["ts-jest", { useESM: true }] },
  // Generous: a test that spawns processes or waits out short timeouts is slow, not stuck, on a loaded box.
  testTimeout: 60_000,
  maxWorkers: 2,
};
export default config;

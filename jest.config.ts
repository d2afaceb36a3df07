import type { Config } from "jest";

/** ESM + ts-jest: sources are transpiled per file (type checking is `npm run typecheck`'s job). */
const config: Config = {
  testEnvironment: "node",
  extensionsToTreatAsEsm: [".ts"],
  roots: ["<rootDir>/tests"],
  testMatch: ["**/*.test.ts"],
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
  transform: { "^.+\\.ts$": ["ts-jest", { useESM: true }] },
  // Generous: a test that spawns processes or waits out short timeouts is slow, not stuck, on a loaded box.
  testTimeout: 60_000,
  maxWorkers: 2,
};
export default config;

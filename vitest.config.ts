import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";
import SlowestFirst from "./test/support/sequencer.js";

/**
 * The HTTP suites run once more with their servers on the PostgreSQL store, on PGlite
 * and on a real PostgreSQL server test/postgres/global-setup.ts starts: a subset that speaks to
 * every operation, list, page, filter and transition (all suites thrice would double CI's time).
 */
const ON_POSTGRES = [
  "test/http/resources.test.ts",
  "test/http/validation.test.ts",
  "test/http/errors.test.ts",
  "test/http/storable-strings.test.ts",
  "test/http/references.test.ts",
  "test/http/conditional.test.ts",
  "test/http/action-store.test.ts",
  "test/http/creation-order.test.ts",
  "test/http/merge-patch.test.ts",
];

export default defineConfig({
  // `#runtime/*.js` (package.json "imports") is the runtime's source under test, and its build in
  // dist/runtime/ everywhere else: tests run the code as written, with no build first.
  ssr: { resolve: { conditions: ["codegen-source", ...defaultServerConditions] } },
  test: {
    // Generous: a loaded machine may run a test several times slower; a limit only stops a hang.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Servers started by tests listen on random ports of 127.0.0.1. Two files at once: vitest's
    // default (one fewer than the cores) runs one at a time on CI's two cores, while most files
    // spend much of their time waiting on a child process, a server or PostgreSQL.
    pool: "forks",
    maxWorkers: 2,
    // The slowest files first, so that both workers finish together (test/support/sequencer.ts).
    sequence: { sequencer: SlowestFirst },
    projects: [
      { extends: true, test: { name: "memory", include: ["test/**/*.test.ts"] } },
      { extends: true, test: { name: "pglite", include: ON_POSTGRES, env: { CODEGEN_TEST_STORE: "pglite" } } },
      {
        extends: true,
        test: { name: "postgres", include: ON_POSTGRES, env: { CODEGEN_TEST_STORE: "postgres" }, globalSetup: ["test/postgres/global-setup.ts"] },
      },
    ],
  },
});

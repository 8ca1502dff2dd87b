import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    // Servers started by tests listen on random ports of 127.0.0.1; files run in parallel on 2 cores.
    pool: "forks",
  },
});

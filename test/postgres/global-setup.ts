// vitest's global setup of the `postgres` project: one PostgreSQL server for its suites (each
// server of a suite gets a database of its own on it), stopped at the end.

import type { TestProject } from "vitest/node";
import { postgresSkipReason, startPostgres } from "./server.js";

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const skip = postgresSkipReason();
  if (skip !== undefined) {
    console.warn(`the postgres project's suites are ${skip}`);
    project.provide("postgresUrl", "");
    return undefined;
  }
  const server = await startPostgres();
  project.provide("postgresUrl", server.url("postgres"));
  return () => server.stop();
}

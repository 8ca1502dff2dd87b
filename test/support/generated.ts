import path from "node:path";
import { nodeHost } from "../../src/host.js";
import type { GeneratedFile } from "../../src/emit/render.js";
import { declarationOf, ROOT } from "./fixtures.js";
import { generateFiles } from "../../src/pipeline.js";
import { readFileSync } from "node:fs";
import { type RunningServer, type ServeOptions, type ServeUser, serveFiles } from "../../src/serve/serve.js";
import { testDatabase } from "../postgres/store.js";

/** Generate a valid fixture's files in memory, as `codegen generate -o fixtures/valid/<name>/expected` would. */
export async function generateFixture(name: string): Promise<GeneratedFile[]> {
  const file = declarationOf("valid", name);
  const host = { ...nodeHost(), cwd: ROOT };
  const result = await generateFiles(host, file, readFileSync(path.join(ROOT, file), "utf8"), {
    outDir: `fixtures/valid/${name}/expected`,
    // The goldens are a project's first generation and its first migration (`codegen migrate new`).
    migration: { name: "initial" },
  });
  if (!result.value) throw new Error(result.diagnostics.map((d) => d.message).join("\n"));
  return result.value;
}

/** Start a valid fixture's generated server on a random port of 127.0.0.1, as `codegen serve` runs it. */
export async function startFixtureServer(name: string, users: readonly ServeUser[] = []): Promise<RunningServer> {
  return serveWithTestStore(await generateFixture(name), users);
}

/**
 * Serves generated files as `codegen serve` does, with this run's store (test/postgres/store.ts):
 * the in-memory one, or a fresh PostgreSQL database (`--db`), closed with the server.
 */
export async function serveWithTestStore(
  files: readonly GeneratedFile[],
  users: readonly ServeUser[],
  extra: Partial<ServeOptions> = {},
): Promise<RunningServer> {
  const database = await testDatabase();
  if (database === undefined) return serveFiles(files, { port: 0, host: "127.0.0.1", users, ...extra });
  const server = await serveFiles(files, { port: 0, host: "127.0.0.1", users, ...extra, database }).catch(async (error: unknown) => {
    await database.close();
    throw error;
  });
  return {
    ...server,
    close: async () => {
      await server.close();
      await database.close();
    },
  };
}

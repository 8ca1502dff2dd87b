// The store handlers of a compiled declaration on this run's store (vitest.config.ts: in memory,
// PGlite or a real PostgreSQL server), and servers of them: for the suites that wrap a store's
// handlers to stage a race.

import type { Server } from "node:http";
import type { Database } from "../../src/postgres/database.js";
import { testDatabase } from "../postgres/store.js";
import { closeLocal, compileText, listenLocal } from "./support.js";
import type { HandlerFunction } from "./support.js";

export type Handlers = { [resource: string]: { [operation: string]: HandlerFunction } };

/** A declaration compiled, with its store's handlers (migrated first on PostgreSQL); `serve` starts a server of handlers, `close` ends them all. */
export async function storeOfDeclaration(declaration: string): Promise<{
  store: Handlers;
  serve(handlers: Handlers, options?: { requireIfMatch?: boolean }): Promise<string>;
  close(): Promise<void>;
}> {
  const [compiled, database] = await Promise.all([compileText(declaration), testDatabase()]);
  const api = compiled.api as typeof compiled.api & {
    migrate(options: { query: Database["query"] }): Promise<string[]>;
    createPostgresStore(options: { query: Database["query"] }): Handlers;
  };
  let store: Handlers;
  if (database === undefined) store = api.createMemoryHandlers();
  else {
    await database.session((query) => api.migrate({ query }));
    store = api.createPostgresStore({ query: database.query });
  }
  const servers: Server[] = [];
  return {
    store,
    serve(handlers, options = {}) {
      const server = compiled.api.createServer({ handlers, verifyToken: () => undefined, ...options });
      servers.push(server);
      return listenLocal(server);
    },
    async close() {
      for (const server of servers) await closeLocal(server);
      await database?.close();
      await compiled.dispose();
    },
  };
}

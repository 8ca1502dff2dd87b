// Helpers of the tests where one database meets version after version of a declaration
// (test/postgres/evolution*.test.ts): the generated server of an output folder, compiled and imported.

import type { Server } from "node:http";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Database } from "../../src/postgres/database.js";
import { compileToJavaScript } from "../../src/serve/compile.js";

/** What a generated server's index.gen.js exports, as far as these tests use it. */
export type VersionApi = {
  migrate(options: { query: Database["query"] }): Promise<string[]>;
  createPostgresStore(options: { query: Database["query"] }): unknown;
  createServer(options: { handlers: unknown }): Server;
};

/** The output folder `out`'s generated server, compiled into the folder `target` and imported. */
export async function importGenerated(out: string, target: string): Promise<VersionApi> {
  const files = [];
  for (const entry of await readdir(out, { recursive: true })) {
    if (entry.endsWith(".ts")) files.push({ path: entry.split(path.sep).join("/"), contents: await readFile(path.join(out, entry), "utf8") });
  }
  for (const file of await compileToJavaScript(files)) {
    await mkdir(path.dirname(path.join(target, file.path)), { recursive: true });
    await writeFile(path.join(target, file.path), file.contents);
  }
  return (await import(pathToFileURL(path.join(target, "index.gen.js")).href)) as VersionApi;
}

import path from "node:path";
import { nodeHost } from "../../src/host.js";
import type { GeneratedFile } from "../../src/render/render.js";
import { declarationOf, ROOT } from "./fixtures.js";
import { generateFiles } from "../../src/run.js";
import { readFileSync } from "node:fs";
import { type RunningServer, type ServeUser, serveFiles } from "../../src/serve/serve.js";

/** Generate a valid fixture's files in memory, as `codegen generate -o fixtures/valid/<name>/expected` would. */
export async function generateFixture(name: string): Promise<GeneratedFile[]> {
  const file = declarationOf("valid", name);
  const host = { ...nodeHost(), cwd: ROOT };
  const result = await generateFiles(host, file, readFileSync(path.join(ROOT, file), "utf8"), { outDir: `fixtures/valid/${name}/expected` });
  if (!result.value) throw new Error(result.diagnostics.map((d) => d.message).join("\n"));
  return result.value;
}

/** Start a valid fixture's generated server on a random port of 127.0.0.1, as `codegen serve` runs it. */
export async function startFixtureServer(name: string, users: readonly ServeUser[] = []): Promise<RunningServer> {
  return serveFiles(await generateFixture(name), { port: 0, host: "127.0.0.1", users });
}

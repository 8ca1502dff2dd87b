// The real install path: pack the package as `npm publish` would, install the tarball into a
// fresh project from the registry, and use it only through its `codegen` binary. Catches what
// the other tests cannot: a folder missing from `files`, a dependency declared as a dev one,
// a bin that does not start outside this repository.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./support/fixtures.js";

const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string; files: string[] };
const work = mkdtempSync(path.join(tmpdir(), "codegen-pack-"));
const project = path.join(work, "project");
const running = new Set<ChildProcess>();

afterAll(() => {
  for (const child of running) stopGroup(child);
  rmSync(work, { recursive: true, force: true });
});

/**
 * The environment of the npm commands: this process's, without what an enclosing `npm test` says
 * about this repository (its package, its script, its folder as local prefix). The user's own
 * npm_config_* (registry, cache, proxy) stay.
 */
const env: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries({ ...process.env, NO_COLOR: "1" }).filter(
    ([name]) => !/^(npm_package_|npm_lifecycle_|npm_command$|npm_config_local_prefix$|init_cwd$)/i.test(name),
  ),
);

/** Run a command to completion; its output is the error message when it fails. */
function run(command: string, args: readonly string[], cwd: string, extra: NodeJS.ProcessEnv = {}): string {
  try {
    return execFileSync(command, args, { cwd, env: { ...env, ...extra }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${stdout ?? ""}\n${stderr ?? ""}`);
  }
}

/** `npx --yes=false` (not `--no`, which swallows the next word): only the project's own bin; never a download of some other package named codegen. */
const codegen = (args: readonly string[], cwd = project) => run("npx", ["--yes=false", "codegen", ...args], cwd);

/** A port nothing listens on just now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Start a long-running command in its own process group, its output collected. */
function start(command: string, args: readonly string[], cwd: string, extra: NodeJS.ProcessEnv = {}): { child: ChildProcess; output: () => string } {
  const child = spawn(command, args, { cwd, env: { ...env, ...extra }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => void (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => void (output += chunk.toString()));
  return { child, output: () => output };
}

/** Stop a started command and everything it started (npm start runs sh, which runs node). */
function stopGroup(child: ChildProcess): void {
  running.delete(child);
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    // The group is gone already.
  }
}

/** GET / until it answers, the process exits, or the time is up. */
async function getIndex(url: string, started: { child: ChildProcess; output: () => string }, ms: number): Promise<{ status: number; body: unknown }> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null) throw new Error(`the server exited (${started.child.exitCode}):\n${started.output()}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      return { status: response.status, body: await response.json() };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`no answer from ${url} within ${ms} ms:\n${started.output()}`);
}

/**
 * Pack a copy of the package's sources, so that `prepare` builds the copy and never rewrites this
 * repository's dist/ under the other test files that run bin/codegen.js meanwhile.
 */
function packCopy(): string {
  const source = path.join(work, "source");
  mkdirSync(source);
  for (const name of new Set([
    "package.json",
    "README.md",
    "tsconfig.json",
    "tsconfig.build.json",
    "src",
    "scripts",
    "fixtures/valid/blog/declaration.yaml",
    ...pkg.files,
  ])) {
    if (name === "dist" || !existsSync(path.join(ROOT, name))) continue;
    cpSync(path.join(ROOT, name), path.join(source, name), { recursive: true });
  }
  // (scripts/ and the blog fixture: the build's bundle step, and its code-cache warm-up run.)
  symlinkSync(path.join(ROOT, "node_modules"), path.join(source, "node_modules"), "dir");
  const packed = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", work], source)) as { filename: string }[];
  return path.join(work, packed[0]!.filename);
}

describe("the packed package, installed from the registry into a fresh project", { timeout: 180_000 }, () => {
  let tarball = "";

  it("packs and installs", () => {
    tarball = packCopy();
    mkdirSync(project);
    run("npm", ["init", "-y"], project);
    run("npm", ["pkg", "set", "type=module"], project);
    run("npm", ["install", "--no-audit", "--no-fund", tarball], project);
    expect(existsSync(path.join(project, "node_modules/codegen-rest-ts/package.json"))).toBe(true);
  });

  it("answers npx codegen --version with the package version", () => {
    expect(codegen(["--version"]).trim()).toBe(pkg.version);
  });

  it("generates server code from a declaration", () => {
    cpSync(path.join(ROOT, "fixtures/valid/blog/declaration.yaml"), path.join(project, "api.yaml"));
    expect(codegen(["generate", "api.yaml", "-o", "generated"])).toMatch(/^wrote \d+/);
    for (const file of ["openapi.yaml", "server.gen.ts", "store.gen.ts", "index.gen.ts", "runtime/dispatch.gen.ts"]) {
      expect(existsSync(path.join(project, "generated", file)), file).toBe(true);
    }
  });

  it("serves a declaration with codegen serve", async () => {
    const port = await freePort();
    const server = start("npx", ["--yes=false", "codegen", "serve", "api.yaml", "--port", String(port)], project);
    try {
      const index = await getIndex(`http://127.0.0.1:${port}/`, server, 30_000);
      expect(index).toMatchObject({ status: 200, body: { links: expect.arrayContaining([{ rel: "articles", method: "GET", href: "/articles" }]) } });
    } finally {
      stopGroup(server.child);
    }
  });

  it("starts a project with codegen init that installs, builds and serves", async () => {
    const out = codegen(["init", "app", "--codegen", `file:${tarball}`]);
    expect(out).toContain("created app/api.yaml");
    const app = path.join(project, "app");
    run("npm", ["install", "--no-audit", "--no-fund"], app);
    const port = await freePort();
    const server = start("npm", ["start"], app, { PORT: String(port) });
    try {
      const index = await getIndex(`http://127.0.0.1:${port}/`, server, 60_000);
      expect(index).toEqual({
        status: 200,
        body: {
          links: [
            { rel: "projects", method: "GET", href: "/projects" },
            { rel: "tasks", method: "GET", href: "/tasks" },
            { rel: "token", method: "POST", href: "/token" },
            // RFC 8631: the served document and its page (http-behaviour "Beyond the API's own routes").
            { rel: "service-desc", method: "GET", href: "/openapi.json" },
            { rel: "service-doc", method: "GET", href: "/docs" },
          ],
        },
      });
      expect(server.output()).toContain(`listening on http://127.0.0.1:${port}`);
      // src/main.ts logs one line per request (cli.md); it comes through npm's pipe, maybe after the answer.
      for (let waited = 0; waited < 5_000 && !/^GET \/ 200 \d+ ms$/m.test(server.output()); waited += 100)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(server.output()).toMatch(/^GET \/ 200 \d+ ms$/m);
      // The generated code was written where the project commits it, and compiled to dist/.
      expect(existsSync(path.join(app, "src/generated/server.gen.ts"))).toBe(true);
      expect(existsSync(path.join(app, "dist/main.js"))).toBe(true);
    } finally {
      stopGroup(server.child);
    }
  });

  it("in a project that has a package.json: npm install, codegen init, npm run dev serves, and a declaration edit is live without a restart", async () => {
    const existing = path.join(work, "existing");
    mkdirSync(existing);
    run("npm", ["init", "-y"], existing);
    run("npm", ["install", "--no-audit", "--no-fund", tarball], existing);
    const out = codegen(["init"], existing);
    expect(out).toContain("created api.yaml");
    expect(out).toContain("added package.json: scripts.dev");
    const pkgJson = JSON.parse(readFileSync(path.join(existing, "package.json"), "utf8")) as { name: string; dependencies: Record<string, string> };
    // The user's entries stay: the name npm init gave, the dependency npm install wrote.
    expect(pkgJson.name).toBe("existing");
    expect(pkgJson.dependencies["codegen-rest-ts"]).toMatch(/^file:/);
    const port = await freePort();
    const dev = start("npm", ["run", "dev", "--", "--port", String(port)], existing);
    try {
      const url = `http://127.0.0.1:${port}`;
      expect((await getIndex(`${url}/`, dev, 60_000)).status).toBe(200);
      expect((await fetch(`${url}/notes`)).status).toBe(404);
      appendFileSync(path.join(existing, "api.yaml"), "  notes:\n    fields:\n      text: string\n    access: { read: public, write: [projects:write] }\n");
      const deadline = Date.now() + 60_000;
      let status = 0;
      // Why the catch: a poll in flight on a kept-alive connection when the old server hands over
      // its port may be reset; the next one connects to the new server.
      const poll = () =>
        fetch(`${url}/notes`).then(
          (response) => response.status,
          () => 0,
        );
      while (Date.now() < deadline && (status = await poll()) !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
      expect(status, dev.output()).toBe(200);
      expect(dev.output()).toMatch(/api\.yaml changed: regenerating\n(.*\n)*restarted on /);
      // The log line comes through npm's pipe, maybe after the answer.
      for (let waited = 0; waited < 5_000 && !/^GET \/notes 200 \d+ ms$/m.test(dev.output()); waited += 100)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(dev.output()).toMatch(/^GET \/notes 200 \d+ ms$/m);
    } finally {
      stopGroup(dev.child);
    }
  });
});

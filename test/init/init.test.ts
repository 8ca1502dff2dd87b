import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { declarationJsonSchema } from "../../src/compile/declaration/schema.js";
import { memoryHost } from "../support/memory-host.js";
import { hostIn } from "../support/host-in.js";
import { initProject, projectFiles, projectName } from "../../src/init/init.js";
import { postgresSkipReason, startPostgres } from "../postgres/server.js";
import { ROOT } from "../support/fixtures.js";

const version = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const scratch = mkdtempSync(path.join(tmpdir(), "codegen-init-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Every file under `dir`, relative and `/`-separated, sorted. */
function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"))
    .sort();
}

const FILES = [
  "package.json",
  "tsconfig.json",
  ".gitignore",
  ".prettierignore",
  "README.md",
  "api.yaml",
  "codegen.schema.json",
  "src/main.ts",
  "src/handlers/store.ts",
  "src/handlers/projects.ts",
  "src/handlers/tasks.ts",
];

describe("projectFiles of a folder without api.yaml", () => {
  const files = projectFiles({ name: "shop-api", codegenSpec: "file:../codegen-rest-ts-0.1.0.tgz" }, undefined).files;
  const file = (name: string) => files.find((f) => f.path === name)?.contents ?? "";

  it("lists the project's files in order", () => {
    expect(files.map((f) => f.path)).toEqual(FILES);
  });

  it("writes a package.json with the scripts and the pinned tool versions", () => {
    expect(JSON.parse(file("package.json"))).toMatchObject({
      name: "shop-api",
      private: true,
      type: "module",
      scripts: {
        generate: "codegen api.yaml -o src/generated",
        build: "npm run generate && tsc -p tsconfig.json",
        start: "npm run build && node dist/main.js",
        dev: "codegen serve api.yaml --watch --user demo:demo-password:projects:write,tasks:write",
        check: "codegen api.yaml -o src/generated --check && tsc -p tsconfig.json --noEmit",
        "migrate:new": "codegen migrate new api.yaml -o src/generated",
      },
      dependencies: { pg: expect.stringMatching(/^\^8\./) },
      devDependencies: { "codegen-rest-ts": "file:../codegen-rest-ts-0.1.0.tgz", typescript: "6.0.3", "@types/node": "^20", "@types/pg": expect.any(String) },
    });
  });

  it("writes a strict tsconfig from src to dist", () => {
    expect(JSON.parse(file("tsconfig.json"))).toMatchObject({
      compilerOptions: {
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        module: "NodeNext",
        moduleResolution: "NodeNext",
        rootDir: "src",
        outDir: "dist",
      },
    });
  });

  it("ignores node_modules and dist but not the generated code", () => {
    const ignored = file(".gitignore").split("\n").filter(Boolean);
    expect(ignored).toEqual(["node_modules/", "dist/"]);
  });

  it("points the declaration at the JSON Schema it writes beside it", () => {
    expect(file("api.yaml").split("\n")[0]).toBe("# yaml-language-server: $schema=./codegen.schema.json");
    expect(JSON.parse(file("codegen.schema.json"))).toEqual(declarationJsonSchema());
    expect(file("codegen.schema.json")).toBe(JSON.stringify(declarationJsonSchema(), null, 2) + "\n");
  });

  it("quotes any project name safely into the declaration's title", () => {
    const text = projectFiles({ name: 'a"b: #c', codegenSpec: "^1.0.0" }, undefined).files.find((f) => f.path === "api.yaml")!.contents;
    expect(text).toContain('title: "a\\"b: #c API"');
  });

  it.each([
    ["/home/ann/My Shop", "my-shop"],
    ["/tmp/_api.", "api"],
    ["/srv/orders.v2", "orders.v2"],
    ["/", "api"],
  ])("names the project of %s %s", (dir, name) => {
    expect(projectName(dir)).toBe(name);
  });
});

describe("initProject", () => {
  it("writes every file into the folder and lists them", async () => {
    const host = memoryHost();
    const result = await initProject(host, "app", { name: "app", codegenSpec: "^1.0.0" });
    expect(result).toEqual({ written: FILES, kept: [], skipped: [], merged: [], conflicts: [] });
    expect([...host.files.keys()]).toEqual(FILES.map((f) => `/work/app/${f}`));
  });

  // Why not api.yaml, store.ts and the handlers: another api.yaml, or a file that does not export
  // what others import from it, changes what init writes (the tests below).
  const independent = FILES.filter((f) => !["package.json", ".prettierignore", "api.yaml"].includes(f) && !f.startsWith("src/handlers/"));
  it.each(independent)("keeps %s when it exists and writes the rest", async (existing) => {
    const host = memoryHost({ [`/work/app/${existing}`]: "mine\n" });
    const result = await initProject(host, "app", { name: "app", codegenSpec: "^1.0.0" });
    expect(result).toEqual({ written: FILES.filter((f) => f !== existing), kept: [existing], skipped: [], merged: [], conflicts: [] });
    expect(host.files.get(`/work/app/${existing}`)).toBe("mine\n");
  });

  it.each([
    {
      what: "that does not validate",
      text: "codegen: 1\nresources: 3\n",
      why: "api.yaml is not a valid declaration (`codegen validate api.yaml` says why); run init again once it is",
    },
    {
      what: "that is an OpenAPI document (it validates)",
      text: 'openapi: 3.1.0\ninfo: { title: Pets, version: "1" }\npaths: {}\n',
      why: "api.yaml is an OpenAPI document, not a declaration: init writes a server and handlers for a declaration's resources only",
    },
  ])("writes no handlers and no server for an api.yaml $what, and says why", async ({ text, why }) => {
    const host = memoryHost({ "/work/app/api.yaml": text });
    const result = await initProject(host, "app", { name: "app", codegenSpec: "^1.0.0" });
    expect(result.skipped).toEqual([
      { path: "README.md", reason: "it describes init's example API, and api.yaml is your own" },
      { path: "src/main.ts", reason: why },
      { path: "src/handlers/", reason: why },
    ]);
    expect([...host.files.keys()].filter((f) => f.startsWith("/work/app/src/"))).toEqual([]);
  });

  it("writes no file whose imports a file of the user's would not give, and no file that imports that one", async () => {
    // store.ts is the user's and exports no `store`: the handlers would not compile, nor main.ts without them.
    const host = memoryHost({ "/work/app/src/handlers/store.ts": "export const db = {};\n" });
    const result = await initProject(host, "app", { name: "app", codegenSpec: "^1.0.0" });
    const unmet = "it would import store from src/handlers/store.ts, which exists and does not export it";
    expect(result.skipped).toEqual([
      { path: "src/main.ts", reason: "it would import closeStore, storeReady from src/handlers/store.ts, which exists and does not export it" },
      { path: "src/handlers/projects.ts", reason: unmet },
      { path: "src/handlers/tasks.ts", reason: unmet },
    ]);
    expect(result.kept).toEqual(["src/handlers/store.ts"]);
    expect([...host.files.keys()].filter((f) => f.startsWith("/work/app/src/"))).toEqual(["/work/app/src/handlers/store.ts"]);
  });

  it("keeps a folder that stands where a file would go", async () => {
    const dir = path.join(scratch, "folder-in-the-way");
    mkdirSync(path.join(dir, "src/main.ts"), { recursive: true });
    const result = await initProject(hostIn(dir), ".", { name: "x", codegenSpec: "^1.0.0" });
    expect(result.kept).toEqual(["src/main.ts"]);
    expect(listFiles(dir)).toEqual(FILES.filter((f) => f !== "src/main.ts").sort());
  });

  it("merges into an existing package.json: adds what is missing, changes no entry, names each that differs", async () => {
    const theirs = {
      name: "shop",
      version: "2.0.0",
      type: "commonjs",
      scripts: { start: "node server.js", test: "vitest" },
      dependencies: { "codegen-rest-ts": "file:../codegen-rest-ts-0.1.0.tgz", express: "^5" },
      devDependencies: { typescript: "^5.9.0" },
    };
    const host = memoryHost({ "/work/package.json": JSON.stringify(theirs, null, 4) + "\n", "/work/.prettierignore": "coverage" });
    const result = await initProject(host, ".", { name: "x", codegenSpec: "^1.0.0" });
    const merged = JSON.parse(host.files.get("/work/package.json")!);
    expect(merged).toEqual({
      ...theirs,
      engines: { node: "^20.19.0 || >=22.12.0" },
      scripts: {
        ...theirs.scripts,
        generate: expect.any(String),
        build: expect.any(String),
        dev: expect.any(String),
        check: expect.any(String),
        "migrate:new": expect.any(String),
      },
      dependencies: { ...theirs.dependencies, pg: expect.any(String) },
      devDependencies: { typescript: "^5.9.0", "@types/node": "^20", "@types/pg": expect.any(String) },
    });
    expect(Object.keys(merged)).toEqual([...Object.keys(theirs), "engines"]);
    expect(host.files.get("/work/package.json")).toMatch(/^\{\n {4}"name": "shop",/);
    expect(result.conflicts).toEqual([
      { key: "type", theirs: "commonjs", ours: "module" },
      { key: "scripts.start", theirs: "node server.js", ours: "npm run build && node dist/main.js" },
    ]);
    expect(result.merged).toEqual([
      "package.json: engines.node",
      "package.json: scripts.generate",
      "package.json: scripts.build",
      "package.json: scripts.dev",
      "package.json: scripts.check",
      "package.json: scripts.migrate:new",
      "package.json: dependencies.pg",
      "package.json: devDependencies.@types/node",
      "package.json: devDependencies.@types/pg",
      ".prettierignore: src/generated/",
    ]);
    expect(host.files.get("/work/.prettierignore")).toBe("coverage\nsrc/generated/\n");
    expect(result.kept).toEqual([]);
  });

  it("leaves a package.json that is not a JSON object as it is, and says so", async () => {
    const host = memoryHost({ "/work/package.json": "{ broken" });
    expect(await main(["init"], host)).toBe(1);
    expect(host.err).toMatch(/cannot write the project into \.: package\.json is not a JSON object/);
    expect(host.files.get("/work/package.json")).toBe("{ broken");
  });
});

describe("codegen init", () => {
  it("creates the project, prints the files and the next steps, and exits 0", async () => {
    const host = memoryHost();
    expect(await main(["init", "my-api"], host)).toBe(0);
    expect(host.err).toBe("");
    expect(host.out).toContain("created my-api/src/main.ts\n");
    expect(host.out).toMatch(/Next steps:\n {2}cd my-api\n {2}npm install\n {2}npm run dev\n/);
    const pkg = JSON.parse(host.files.get("/work/my-api/package.json")!);
    expect(pkg).toMatchObject({ name: "my-api", devDependencies: { "codegen-rest-ts": `^${version}` } });
  });

  it("initialises the current folder by default, without a cd step", async () => {
    const host = memoryHost();
    expect(await main(["init", "--codegen", "file:/tmp/c.tgz"], host)).toBe(0);
    expect(host.files.has("/work/api.yaml")).toBe(true);
    expect(host.out).not.toContain("cd ");
    expect(JSON.parse(host.files.get("/work/package.json")!).devDependencies["codegen-rest-ts"]).toBe("file:/tmp/c.tgz");
  });

  it("in an existing project: names every file it keeps and every entry it does not change, exit 0", async () => {
    const host = memoryHost({
      "/work/app/package.json": '{"scripts": {"dev": "vite"}}\n',
      "/work/app/src/main.ts": "// mine\n",
      "/work/app/eslint.config.js": "",
    });
    expect(await main(["init", "app"], host)).toBe(0);
    expect(host.err).toBe(
      "codegen: kept app/src/main.ts: it exists (init overwrites nothing)\n" +
        'codegen: kept app/package.json scripts.dev = "vite"; init would set "codegen serve api.yaml --watch --user demo:demo-password:projects:write,tasks:write"\n',
    );
    expect(host.out).toContain("added app/package.json: scripts.check\n");
    expect(host.out).toContain('ESLint: add { ignores: ["src/generated/"] } to app/eslint.config.js');
    expect(host.files.get("/work/app/src/main.ts")).toBe("// mine\n");
    expect(JSON.parse(host.files.get("/work/app/package.json")!).scripts.dev).toBe("vite");
  });

  it("shows an example in --help", async () => {
    const host = memoryHost();
    expect(await main(["init", "--help"], host)).toBe(0);
    expect(host.out).toMatch(/Example:\n\s+\$ codegen init /);
    expect(host.out).toContain("--codegen <spec>");
  });
});

describe("the project init writes", () => {
  const dir = path.join(scratch, "project");

  it("has a declaration that passes codegen validate", async () => {
    const host = hostIn(dir);
    expect(await main(["init"], host)).toBe(0);
    expect(listFiles(dir)).toEqual([...FILES].sort());
    const validate = hostIn(dir);
    expect(await main(["validate", "api.yaml"], validate)).toBe(0);
    expect(validate.err()).toBe("");
  });

  it("type-checks, generated code and its own src, under its own tsconfig", () => {
    // What `npm run generate` does there, with this repository's CLI (unformatted, which types the
    // same and takes a third of the time); then tsc over the project, finding @types/node, pg and
    // @types/pg in this repository (node_modules linked) so that nothing is installed.
    symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
    const bin = path.join(ROOT, "bin/codegen.js");
    execFileSync(process.execPath, [bin, "generate", "api.yaml", "-o", "src/generated", "--no-format", "--quiet"], {
      cwd: dir,
      encoding: "utf8",
    });
    expect(existsSync(path.join(dir, "src/generated/index.gen.ts"))).toBe(true);
    // What `npm run migrate:new -- initial` does: the first migration, which the DATABASE_URL test below applies.
    execFileSync(process.execPath, [bin, "migrate", "new", "api.yaml", "initial", "-o", "src/generated"], { cwd: dir, encoding: "utf8" });
    const check = {
      extends: "./tsconfig.json",
      compilerOptions: { noEmit: true, typeRoots: [path.join(ROOT, "node_modules/@types")] },
    };
    writeFileSync(path.join(dir, "tsconfig.check.json"), JSON.stringify(check));
    const tsc = path.join(ROOT, "node_modules/typescript/bin/tsc");
    try {
      execFileSync(process.execPath, [tsc, "-p", "tsconfig.check.json"], { cwd: dir, encoding: "utf8" });
    } catch (error) {
      throw new Error(`tsc failed:\n${(error as { stdout: string }).stdout}`);
    }
  }, 60_000);

  /** Starts the built project (dist/main.js) with `env`; its output, a wait for a line of it, and its end. */
  function startProject(env: Record<string, string>) {
    const child = spawn(process.execPath, ["dist/main.js"], { cwd: dir, env: { ...process.env, PORT: "0", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => void (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => void (output += chunk.toString()));
    const until = async (pattern: RegExp) => {
      for (let waited = 0; waited < 20_000 && !pattern.test(output); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(output).toMatch(pattern);
      return output.match(pattern)!;
    };
    const stopped = new Promise((resolve) => child.once("exit", resolve));
    return { until, output: () => output, stop: () => (child.kill("SIGTERM"), stopped) };
  }

  /** A token of the project's demo user, from its POST /token. */
  async function demoToken(url: string, scope: string): Promise<string> {
    const issued = await fetch(`${url}/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: `grant_type=password&username=demo&password=demo-password&scope=${scope}`,
    });
    return ((await issued.json()) as { access_token: string }).access_token;
  }

  it("its server (npm start) logs one line per request through onResponse, the caller named, the query left out", async () => {
    // Compiled as `npm run build` does (the generated code was written by the test above).
    const build = { extends: "./tsconfig.json", compilerOptions: { typeRoots: [path.join(ROOT, "node_modules/@types")] } };
    writeFileSync(path.join(dir, "tsconfig.build-test.json"), JSON.stringify(build));
    execFileSync(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build-test.json"], { cwd: dir, encoding: "utf8" });
    const server = startProject({});
    try {
      const [, url] = await server.until(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      const access_token = await demoToken(url!, "projects:write");
      const created = await fetch(`${url}/projects`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${access_token}` },
        body: JSON.stringify({ name: "Launch" }),
      });
      expect(created.status).toBe(201);
      expect((await fetch(`${url}/nothing?key=secret`)).status).toBe(404);
      await server.until(/^POST \/token 200 \d+ ms\nPOST \/projects 201 \d+ ms demo\nGET \/nothing 404 \d+ ms\n/m);
    } finally {
      await server.stop();
    }
  }, 60_000);

  const skip = postgresSkipReason();
  it.skipIf(skip !== undefined)(
    `with DATABASE_URL its server keeps the objects in PostgreSQL across a restart${skip ? ` (${skip})` : ""}`,
    async () => {
      // The project compiled by the test above, against a database of its own on a real server.
      const postgres = await startPostgres();
      try {
        const env = { DATABASE_URL: await postgres.createDatabase("init_project") };
        const first = startProject(env);
        let created: { id: number; name: string };
        try {
          await first.until(/applied migration 0001_initial\n/);
          const [, url] = await first.until(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
          const reply = await fetch(`${url}/projects`, {
            method: "POST",
            headers: { "Content-Type": "application/json", Authorization: `Bearer ${await demoToken(url!, "projects:write")}` },
            body: JSON.stringify({ name: "Kept" }),
          });
          expect(reply.status).toBe(201);
          created = (await reply.json()) as typeof created;
        } finally {
          await first.stop();
        }
        const second = startProject(env);
        try {
          const [, url] = await second.until(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
          // The tables were there: nothing left to apply.
          expect(second.output()).not.toMatch(/applied migration/);
          const read = await fetch(`${url}/projects/${created.id}`);
          expect(read.status).toBe(200);
          expect(await read.json()).toMatchObject({ id: created.id, name: "Kept" });
        } finally {
          await second.stop();
        }
      } finally {
        await postgres.stop();
      }
    },
    120_000,
  );
});

describe("init run again in a project made the user's own", () => {
  const dir = path.join(scratch, "adapted");

  it("after api.yaml and the handlers were made the user's own: scaffolds its resources only, overwrites nothing, and compiles", async () => {
    // A project init wrote, adapted as a team would: resources renamed, removed
    // and added, other scopes, a handler file of their own, the example's server and handlers
    // and its README deleted.
    mkdirSync(dir);
    expect(await main(["init"], hostIn(dir))).toBe(0);
    const clinic = [
      "codegen: 1",
      "info: { title: Clinic, version: 1.0.0 }",
      "auth:",
      "  - guard: password",
      "    tokenUrl: /token",
      "    scopes: { clinic:write: Change the clinic's records }",
      "resources:",
      "  owners:",
      "    fields: { name: { type: string, required: true } }",
      "    access: { read: authenticated, write: [clinic:write] }",
      "  pets:",
      "    fields: { name: { type: string, required: true }, ownerId: { type: integer, ref: owners, required: true } }",
      "    access: { read: public, write: [clinic:write] }",
      "  visit-notes:",
      "    fields: { text: string }",
      "",
    ].join("\n");
    writeFileSync(path.join(dir, "api.yaml"), clinic);
    for (const file of ["src/main.ts", "src/handlers/projects.ts", "src/handlers/tasks.ts", "README.md"]) rmSync(path.join(dir, file));
    const owners = [
      'import type { OwnersHandlers } from "../generated/index.gen.js";',
      'import { store } from "./store.js";',
      "",
      "export const owners: OwnersHandlers = { ...store.owners, deleteOwner: async () => undefined };",
      "",
    ].join("\n");
    writeFileSync(path.join(dir, "src/handlers/owners.ts"), owners);
    const before = new Map(listFiles(dir).map((f) => [f, readFileSync(path.join(dir, f), "utf8")]));

    const result = spawnSync(process.execPath, [path.join(ROOT, "bin/codegen.js"), "init"], { cwd: dir, encoding: "utf8" });
    expect(result.status).toBe(0);
    const created = [...result.stdout.matchAll(/^created (\S+)$/gm)].map((m) => m[1]);
    expect(created).toEqual(["src/main.ts", "src/handlers/pets.ts", "src/handlers/visit-notes.ts"]);
    expect(result.stderr).toContain("codegen: kept src/handlers/owners.ts: it exists (init overwrites nothing)\n");
    expect(result.stderr).toContain("codegen: skipped README.md: it describes init's example API, and api.yaml is your own\n");
    // Every file that was there is as it was.
    for (const [file, text] of before) expect(readFileSync(path.join(dir, file), "utf8"), file).toBe(text);
    expect(existsSync(path.join(dir, "src/handlers/projects.ts"))).toBe(false);
    expect(existsSync(path.join(dir, "src/handlers/tasks.ts"))).toBe(false);
    const server = readFileSync(path.join(dir, "src/main.ts"), "utf8");
    expect(server).toContain("handlers: { owners, pets, visitNotes },");
    expect(server).toContain('scopes: ["clinic:write"]');
    expect(readFileSync(path.join(dir, "src/handlers/visit-notes.ts"), "utf8")).toContain(
      "export const visitNotes: VisitNotesHandlers = {\n  ...store.visitNotes,\n};",
    );

    // What `npm run check` does: generate, then tsc over the whole project under its own tsconfig
    // (@types found in this repository, as in the test of the first run above).
    symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
    const check = { extends: "./tsconfig.json", compilerOptions: { noEmit: true, typeRoots: [path.join(ROOT, "node_modules/@types")] } };
    writeFileSync(path.join(dir, "tsconfig.check.json"), JSON.stringify(check));
    execFileSync(process.execPath, [path.join(ROOT, "bin/codegen.js"), "generate", "api.yaml", "-o", "src/generated", "--no-format", "--quiet"], {
      cwd: dir,
      encoding: "utf8",
    });
    try {
      execFileSync(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.check.json"], { cwd: dir, encoding: "utf8" });
    } catch (error) {
      throw new Error(`tsc failed:\n${(error as { stdout: string }).stdout}`);
    }
  }, 60_000);
});

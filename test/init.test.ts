import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../src/cli.js";
import { declarationJsonSchema } from "../src/declaration/schema.js";
import { type Host, memoryHost, nodeHost } from "../src/host.js";
import { initFiles, initProject, projectName } from "../src/init/init.js";
import { ROOT } from "./support/fixtures.js";

const version = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const scratch = mkdtempSync(path.join(tmpdir(), "codegen-init-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A host on the real file system whose folder is `dir`, with captured output. */
function hostIn(dir: string): Host & { out: () => string; err: () => string } {
  const real = nodeHost();
  let out = "";
  let err = "";
  return {
    ...real,
    cwd: dir,
    colour: false,
    readFile: (file) => real.readFile(path.resolve(dir, file)),
    writeFile: (file, contents) => real.writeFile(path.resolve(dir, file), contents),
    stdout: (text) => void (out += text),
    stderr: (text) => void (err += text),
    out: () => out,
    err: () => err,
  };
}

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
  "README.md",
  "api.yaml",
  "codegen.schema.json",
  "src/main.ts",
  "src/handlers/memory.ts",
  "src/handlers/projects.ts",
  "src/handlers/tasks.ts",
];

describe("initFiles", () => {
  const files = initFiles({ name: "shop-api", codegenSpec: "file:../codegen-rest-ts-0.1.0.tgz" });
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
      },
      devDependencies: { "codegen-rest-ts": "file:../codegen-rest-ts-0.1.0.tgz", typescript: "6.0.3", "@types/node": "^20" },
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
    const text = initFiles({ name: 'a"b: #c', codegenSpec: "^1.0.0" }).find((f) => f.path === "api.yaml")!.contents;
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
    expect(result).toEqual({ written: FILES });
    expect([...host.files.keys()]).toEqual(FILES.map((f) => `/work/app/${f}`));
  });

  it.each(FILES)("refuses and writes nothing when %s exists", async (existing) => {
    const host = memoryHost({ [`/work/app/${existing}`]: "mine\n" });
    const result = await initProject(host, "app", { name: "app", codegenSpec: "^1.0.0" });
    expect(result).toEqual({ refused: [existing] });
    expect(Object.fromEntries(host.files)).toEqual({ [`/work/app/${existing}`]: "mine\n" });
  });

  it("refuses when a folder stands where a file would go", async () => {
    const dir = path.join(scratch, "folder-in-the-way");
    mkdirSync(path.join(dir, "src/main.ts"), { recursive: true });
    const result = await initProject(hostIn(dir), ".", { name: "x", codegenSpec: "^1.0.0" });
    expect(result).toEqual({ refused: ["src/main.ts"] });
    expect(listFiles(dir)).toEqual([]);
  });
});

describe("codegen init", () => {
  it("creates the project, prints the files and the next steps, and exits 0", async () => {
    const host = memoryHost();
    expect(await main(["init", "my-api"], host)).toBe(0);
    expect(host.err).toBe("");
    expect(host.out).toContain("created my-api/src/main.ts\n");
    expect(host.out).toMatch(/Next steps:\n {2}cd my-api\n {2}npm install\n {2}npm start\n/);
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

  it("exits 1 naming every file that exists, and writes nothing", async () => {
    const host = memoryHost({ "/work/app/package.json": "{}\n", "/work/app/src/main.ts": "// mine\n" });
    expect(await main(["init", "app"], host)).toBe(1);
    expect(host.err).toBe(
      "codegen: error: app/package.json exists already\n" +
        "codegen: error: app/src/main.ts exists already\n" +
        "codegen: init overwrites nothing, so it wrote nothing\n",
    );
    expect(host.out).toBe("");
    expect(host.files.size).toBe(2);
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
    // same and takes a third of the time); then tsc over the project, finding @types/node in this
    // repository so that nothing is installed.
    const bin = path.join(ROOT, "bin/codegen.js");
    execFileSync(process.execPath, [bin, "generate", "api.yaml", "-o", "src/generated", "--no-format", "--quiet"], {
      cwd: dir,
      encoding: "utf8",
    });
    expect(existsSync(path.join(dir, "src/generated/index.gen.ts"))).toBe(true);
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
  });
});

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { matchesHash } from "../../src/write/plan.js";
import { ROOT } from "../support/fixtures.js";

const BIN = path.join(ROOT, "bin/codegen.js");
const scratch = mkdtempSync(path.join(tmpdir(), "codegen-regen-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Run the installed command in `cwd`, with extra environment. */
function codegen(cwd: string, args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A fresh project folder holding a declaration. */
function project(name: string, declaration: unknown): string {
  const dir = path.join(scratch, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "api.yaml"), stringify(declaration));
  return dir;
}

/** Every file under a folder (relative, `/`-separated) with its bytes' hash. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, file).split(path.sep).join("/")] = createHash("sha256").update(readFileSync(file)).digest("hex");
  }
  return out;
}

const declaration = (resources: Record<string, unknown>) => ({
  codegen: 1,
  info: { title: "Shop", version: "1.0.0" },
  resources,
});
const two = declaration({ products: { fields: { name: "string" } }, orders: { fields: { total: "number" } } });
const one = declaration({ products: { fields: { name: "string" } } });

describe("regeneration", () => {
  it("gives byte-identical trees whatever the working folder, the path form, the time zone or the locale", () => {
    const a = project("same-a", two);
    const b = project("same-b", two);
    expect(codegen(a, ["api.yaml", "-o", "out"]).code).toBe(0);
    expect(
      codegen(path.dirname(b), [path.join(b, "api.yaml"), "-o", path.join(b, "out")], { TZ: "Pacific/Kiritimati", LANG: "tr_TR.UTF-8", LC_ALL: "tr_TR.UTF-8" })
        .code,
    ).toBe(0);
    expect(tree(path.join(b, "out"))).toEqual(tree(path.join(a, "out")));
    expect(Object.keys(tree(path.join(a, "out")))).toContain(".codegen-manifest.json");
  });

  it("deletes the files of a removed resource, and says so", () => {
    const dir = project("removed", two);
    expect(codegen(dir, ["api.yaml", "-o", "out"]).code).toBe(0);
    expect(existsSync(path.join(dir, "out/resources/orders.gen.ts"))).toBe(true);
    writeFileSync(path.join(dir, "api.yaml"), stringify(one));
    const result = codegen(dir, ["api.yaml", "-o", "out"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^wrote \d+, unchanged \d+, removed 1 in \d+ ms\n$/);
    expect(existsSync(path.join(dir, "out/resources/orders.gen.ts"))).toBe(false);
    expect(existsSync(path.join(dir, "out/resources/products.gen.ts"))).toBe(true);
  });

  it("stops at a hand-edited generated file, and --force overwrites it", () => {
    const dir = project("edited", two);
    codegen(dir, ["api.yaml", "-o", "out"]);
    const file = path.join(dir, "out/types.gen.ts");
    const generated = readFileSync(file, "utf8");
    writeFileSync(file, generated + "// my change\n");
    writeFileSync(path.join(dir, "api.yaml"), stringify(one));
    const stopped = codegen(dir, ["api.yaml", "-o", "out"]);
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toContain("`out/types.gen.ts` was edited by hand");
    expect(stopped.stderr).toContain("--force");
    expect(readFileSync(file, "utf8")).toBe(generated + "// my change\n");
    // Nothing else was written either: the removed resource's file is still there.
    expect(existsSync(path.join(dir, "out/resources/orders.gen.ts"))).toBe(true);
    const forced = codegen(dir, ["api.yaml", "-o", "out", "--force"]);
    expect(forced.code).toBe(0);
    expect(readFileSync(file, "utf8")).not.toContain("// my change");
  });

  it("never touches a file it did not write, and refuses to overwrite one", () => {
    const dir = project("foreign", two);
    mkdirSync(path.join(dir, "out/mine"), { recursive: true });
    writeFileSync(path.join(dir, "out/notes.md"), "mine\n");
    writeFileSync(path.join(dir, "out/mine/handlers.ts"), "export {};\n");
    const before = statSync(path.join(dir, "out/notes.md"));
    expect(codegen(dir, ["api.yaml", "-o", "out"]).code).toBe(0);
    writeFileSync(path.join(dir, "api.yaml"), stringify(one));
    expect(codegen(dir, ["api.yaml", "-o", "out"]).code).toBe(0);
    const after = statSync(path.join(dir, "out/notes.md"));
    expect(readFileSync(path.join(dir, "out/notes.md"), "utf8")).toBe("mine\n");
    expect(readFileSync(path.join(dir, "out/mine/handlers.ts"), "utf8")).toBe("export {};\n");
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);

    const clash = project("clash", two);
    mkdirSync(path.join(clash, "out"));
    writeFileSync(path.join(clash, "out/types.gen.ts"), "// someone else's\n");
    const refused = codegen(clash, ["api.yaml", "-o", "out"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("`out/types.gen.ts` exists and was not written by codegen");
    expect(readdirSync(path.join(clash, "out"))).toEqual(["types.gen.ts"]);
  });

  it.each([["."], [".."], ["spec"]])("refuses the output folder %s, which holds the project or the input", (out) => {
    const dir = project(`unsafe-${out.replace(/\W/g, "x")}`, two);
    mkdirSync(path.join(dir, "spec"));
    writeFileSync(path.join(dir, "spec/api.yaml"), stringify(two));
    const result = codegen(dir, ["spec/api.yaml", "-o", out]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("cannot be the output folder");
    expect(readdirSync(dir).sort()).toEqual(["api.yaml", "spec"]);
  });

  it("does not rewrite unchanged files, so their modification times stay", () => {
    const dir = project("mtimes", two);
    codegen(dir, ["api.yaml", "-o", "out"]);
    const file = path.join(dir, "out/server.gen.ts");
    utimesSync(file, new Date(2000, 0, 1), new Date(2000, 0, 1));
    const result = codegen(dir, ["api.yaml", "-o", "out"]);
    expect(result.stdout).toMatch(/^wrote 0, unchanged \d+, removed 0 in \d+ ms\n$/);
    expect(statSync(file).mtime.getFullYear()).toBe(2000);
  });

  it("--check writes nothing, exits 0 when current and 1 with a diff when not", () => {
    const dir = project("check", two);
    const missing = codegen(dir, ["api.yaml", "-o", "out", "--check"]);
    expect(missing.code).toBe(1);
    expect(existsSync(path.join(dir, "out"))).toBe(false);
    codegen(dir, ["api.yaml", "-o", "out"]);
    expect(codegen(dir, ["api.yaml", "-o", "out", "--check"])).toMatchObject({ code: 0, stdout: "out is up to date\n" });
    writeFileSync(
      path.join(dir, "api.yaml"),
      stringify(declaration({ products: { fields: { name: "string", price: "number" } }, orders: { fields: { total: "number" } } })),
    );
    const before = tree(path.join(dir, "out"));
    const drift = codegen(dir, ["api.yaml", "-o", "out", "--check"]);
    expect(drift.code).toBe(1);
    expect(drift.stdout).toMatch(/^would change {2}out\/types\.gen\.ts$/m);
    expect(drift.stdout).toMatch(/^--- a\/out\/types\.gen\.ts/m);
    expect(drift.stdout).toMatch(/^\+.*price\?: number/m);
    expect(drift.stderr).toMatch(/`out` is not up to date: \d+ files would change/);
    expect(tree(path.join(dir, "out"))).toEqual(before);
  });

  it("--check shows the diff of a file edited by hand, and of one no longer generated, with the refusal", () => {
    const dir = project("check-edited", two);
    codegen(dir, ["api.yaml", "-o", "out"]);
    const types = path.join(dir, "out/types.gen.ts");
    writeFileSync(types, readFileSync(types, "utf8").replace(/^export /m, "// my note\nexport "));
    const orders = path.join(dir, "out/resources/orders.gen.ts");
    writeFileSync(orders, readFileSync(orders, "utf8") + "// mine too\n");
    writeFileSync(path.join(dir, "api.yaml"), stringify(one));
    const before = tree(path.join(dir, "out"));
    const result = codegen(dir, ["api.yaml", "-o", "out", "--check"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("`out/types.gen.ts` was edited by hand");
    expect(result.stderr).toContain("`out/resources/orders.gen.ts` was edited by hand");
    expect(result.stdout).toMatch(/^edited by hand out\/types\.gen\.ts \(codegen writes otherwise; --force overwrites it\)$/m);
    expect(result.stdout).toMatch(/^edited by hand out\/resources\/orders\.gen\.ts \(no longer generated; --force overwrites it\)$/m);
    expect(result.stdout).toMatch(/^--- a\/out\/types\.gen\.ts\n\+\+\+ b\/out\/types\.gen\.ts\n@@[^\n]*\n(?: [^\n]*\n)*-\/\/ my note\n/m);
    expect(result.stdout).toMatch(/^--- a\/out\/resources\/orders\.gen\.ts\n/m);
    // The files still generated but changed by the edit of api.yaml are shown too.
    expect(result.stdout).toMatch(/^would change {2}out\/handlers\.gen\.ts$/m);
    expect(result.stdout).toMatch(/^--- a\/out\/handlers\.gen\.ts$/m);
    expect(tree(path.join(dir, "out"))).toEqual(before);
  });

  it("--check names every file that differs and bounds the diff, saying how many lines it left out", () => {
    const dir = project("check-bounded", two);
    const result = codegen(dir, ["api.yaml", "-o", "out", "--check"]);
    expect(result.code).toBe(1);
    const added = [...result.stdout.matchAll(/^would add {5}(\S+)$/gm)].map((m) => m[1]);
    expect(added.length).toBeGreaterThan(20);
    const diffLines = result.stdout.split("\n").filter((line) => /^[-+ @]/.test(line) && !/^(---|\+\+\+) /.test(line));
    expect(diffLines.length).toBeLessThanOrEqual(400);
    // Every file has its diff, or a line saying how much of it was left out.
    for (const file of added)
      expect(result.stdout).toMatch(new RegExp(`^(\\+\\+\\+ b/${file}|\\.\\.\\. \\(\\d+ more diff lines? of ${file} left out\\))$`, "m"));
    expect(result.stdout).toMatch(/^\.\.\. \(\d+ more diff lines of out\/openapi\.yaml left out\)$/m);
  });
});

describe("links and a manifest inside the output folder are never followed", () => {
  const hash = (text: string) => `sha256-${createHash("sha256").update(text).digest("hex")}`;

  /** A project beside a folder (and a file) that must come through every run byte for byte. */
  function withVictim(name: string, declared: unknown = two) {
    const dir = project(name, declared);
    const victim = path.join(dir, "victim");
    mkdirSync(victim);
    // Named like generated files, so that a run writing through a link would overwrite them.
    for (const file of ["http.gen.ts", "dispatch.gen.ts", "keep.txt"]) writeFileSync(path.join(victim, file), `victim ${file}\n`);
    writeFileSync(path.join(dir, "victim.txt"), "victim file\n");
    const snapshot = () => ({ folder: tree(victim), names: readdirSync(victim).sort(), file: readFileSync(path.join(dir, "victim.txt"), "utf8") });
    return { dir, victim, before: snapshot(), snapshot };
  }

  it("stops at a link to a folder where generated files go, and writes nothing through it", () => {
    const { dir, before, snapshot } = withVictim("link-folder");
    mkdirSync(path.join(dir, "out"));
    symlinkSync("../victim", path.join(dir, "out/runtime"));
    for (const args of [[], ["--force"], ["--check"]]) {
      const result = codegen(dir, ["api.yaml", "-o", "out", ...args]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("`out/runtime` is a symbolic link, and codegen never reads, writes or deletes through a link");
      expect(result.stderr).toContain("[output/symbolic-link]");
      // One diagnostic for the link, not one per file that would go through it.
      expect(result.stderr.match(/symbolic-link/g)).toHaveLength(1);
      expect(snapshot()).toEqual(before);
      expect(readdirSync(path.join(dir, "out"))).toEqual(["runtime"]);
      expect(readlinkSync(path.join(dir, "out/runtime"))).toBe("../victim");
    }
  });

  it("stops at a link where a generated file goes, even one whose target holds the generated text", () => {
    const { dir, before, snapshot } = withVictim("link-file");
    expect(codegen(dir, ["api.yaml", "-o", "out"]).code).toBe(0);
    const generated = readFileSync(path.join(dir, "out/types.gen.ts"), "utf8");
    rmSync(path.join(dir, "out/types.gen.ts"));
    symlinkSync("../victim.txt", path.join(dir, "out/types.gen.ts"));
    for (const args of [[], ["--check"]]) {
      const result = codegen(dir, ["api.yaml", "-o", "out", ...args]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("`out/types.gen.ts` is a symbolic link");
      expect(snapshot()).toEqual(before);
      expect(lstatSync(path.join(dir, "out/types.gen.ts")).isSymbolicLink()).toBe(true);
    }
    // A link to a file holding exactly the generated text is still not read as the generated file.
    writeFileSync(path.join(dir, "copy.ts"), generated);
    rmSync(path.join(dir, "out/types.gen.ts"));
    symlinkSync("../copy.ts", path.join(dir, "out/types.gen.ts"));
    expect(codegen(dir, ["api.yaml", "-o", "out", "--check"]).code).toBe(1);
  });

  it("keeps links that stand aside as the links they are, and never deletes through one", () => {
    const { dir, victim, before, snapshot } = withVictim("link-aside");
    mkdirSync(path.join(dir, "out/deep/er"), { recursive: true });
    symlinkSync("../../../victim", path.join(dir, "out/deep/er/folder"));
    symlinkSync("../victim.txt", path.join(dir, "out/notes.txt"));
    expect(codegen(dir, ["api.yaml", "-o", "out"]).code).toBe(0);
    // A manifest naming files behind the links as generated (with their very hashes): on the next
    // run they are "no longer generated", and would be deleted were the links followed.
    const manifestFile = path.join(dir, "out/.codegen-manifest.json");
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as { files: Record<string, string> };
    manifest.files["deep/er/folder/keep.txt"] = hash("victim keep.txt\n");
    manifest.files["notes.txt"] = hash("victim file\n");
    writeFileSync(manifestFile, JSON.stringify(manifest));
    writeFileSync(path.join(dir, "api.yaml"), stringify(one));
    const result = codegen(dir, ["api.yaml", "-o", "out"]);
    expect(result.code).toBe(0);
    expect(snapshot()).toEqual(before);
    expect(readlinkSync(path.join(dir, "out/deep/er/folder"))).toBe("../../../victim");
    expect(readlinkSync(path.join(dir, "out/notes.txt"))).toBe("../victim.txt");
    expect(existsSync(path.join(victim, "keep.txt"))).toBe(true);
  });

  it("never reads, deletes or writes outside the folder for paths a crafted manifest names", () => {
    const { dir, before, snapshot } = withVictim("crafted-manifest");
    expect(codegen(dir, ["api.yaml", "-o", "out"]).code).toBe(0);
    mkdirSync(path.join(dir, "out/a"));
    const manifestFile = path.join(dir, "out/.codegen-manifest.json");
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as { files: Record<string, string> };
    const file = hash("victim file\n");
    const keep = hash("victim keep.txt\n");
    Object.assign(manifest.files, {
      "../victim.txt": file,
      "a/../../victim.txt": file,
      "./../victim.txt": file,
      [path.join(dir, "victim.txt")]: file,
      "..\\victim.txt": file,
      "../victim/keep.txt": keep,
      "runtime/../../victim/keep.txt": keep,
      "a//../../victim.txt": file,
      "../victim.txt\u0000": file,
      constructor: file,
      __proto__: file,
    });
    writeFileSync(manifestFile, JSON.stringify(manifest));
    writeFileSync(path.join(dir, "api.yaml"), stringify(one));
    // --check prints the text of every file it would remove: none of it may come from outside.
    const check = codegen(dir, ["api.yaml", "-o", "out", "--check"]);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain("would remove  out/resources/orders.gen.ts");
    expect(check.stdout).not.toContain("victim");
    expect(check.stdout).not.toMatch(/would remove {2}out\/(?!resources\/orders\.gen\.ts$)/m);
    const result = codegen(dir, ["api.yaml", "-o", "out"]);
    // Nothing is printed (the folder holds no migration, so dropping `orders` is no change to
    // name), and nothing of the names the crafted manifest holds.
    expect(result.stderr).toBe("");
    expect(result.stderr).not.toContain("victim");
    expect(result.code).toBe(0);
    expect(snapshot()).toEqual(before);
    // The rewritten manifest lists only what this run generated.
    const rewritten = JSON.parse(readFileSync(manifestFile, "utf8")) as { files: Record<string, string> };
    expect(Object.keys(rewritten.files).every((name) => /^[a-z][\w./-]*$/.test(name) && !name.includes(".."))).toBe(true);
    expect(existsSync(path.join(dir, "out/resources/orders.gen.ts"))).toBe(false);
  });

  it("the link of the original report: a crafted manifest cannot make a run overwrite a file behind a link", () => {
    const { dir, before, snapshot } = withVictim("crafted-link");
    expect(codegen(dir, ["api.yaml", "-o", "out"]).code).toBe(0);
    const manifestFile = path.join(dir, "out/.codegen-manifest.json");
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as { files: Record<string, string> };
    // The runtime folder swapped for a link, with the manifest claiming the victim's text as generated.
    rmSync(path.join(dir, "out/runtime"), { recursive: true });
    symlinkSync("../victim", path.join(dir, "out/runtime"));
    manifest.files["runtime/http.gen.ts"] = hash("victim http.gen.ts\n");
    manifest.files["runtime/dispatch.gen.ts"] = hash("victim dispatch.gen.ts\n");
    writeFileSync(manifestFile, JSON.stringify(manifest));
    const result = codegen(dir, ["api.yaml", "-o", "out", "--force"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("`out/runtime` is a symbolic link");
    expect(snapshot()).toEqual(before);
  });

  it("does not hang on a FIFO where a generated file goes, and leaves it alone", () => {
    const dir = project("fifo", two);
    mkdirSync(path.join(dir, "out"));
    const made = spawnSync("mkfifo", [path.join(dir, "out/types.gen.ts")]);
    if (made.status !== 0) return; // no mkfifo on this system
    const result = spawnSync(process.execPath, [BIN, "api.yaml", "-o", "out"], { cwd: dir, encoding: "utf8", timeout: 30_000 });
    expect(result.signal).toBeNull();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("`out/types.gen.ts` exists and was not written by codegen");
    expect(lstatSync(path.join(dir, "out/types.gen.ts")).isFIFO()).toBe(true);
  });

  it("follows an output folder named as a link (the user named it), keeping the link", () => {
    const dir = project("link-named", two);
    mkdirSync(path.join(dir, "real"));
    symlinkSync("real/gen", path.join(dir, "out")); // dangling until the first run
    expect(codegen(dir, ["api.yaml", "-o", "out"]).code).toBe(0);
    expect(readlinkSync(path.join(dir, "out"))).toBe("real/gen");
    expect(existsSync(path.join(dir, "real/gen/resources/orders.gen.ts"))).toBe(true);
    writeFileSync(path.join(dir, "api.yaml"), stringify(one));
    expect(codegen(dir, ["api.yaml", "-o", "out"]).code).toBe(0);
    expect(readlinkSync(path.join(dir, "out"))).toBe("real/gen");
    expect(existsSync(path.join(dir, "real/gen/resources/orders.gen.ts"))).toBe(false);
    expect(codegen(dir, ["api.yaml", "-o", "out", "--check"]).code).toBe(0);
    expect(readdirSync(path.join(dir, "real"))).toEqual(["gen"]);
    // A link named as the output folder that points at the project is refused like the project.
    symlinkSync(".", path.join(dir, "here"));
    expect(codegen(dir, ["api.yaml", "-o", "here"]).stderr).toContain("cannot be the output folder");
  });
});

describe("a run killed at any moment", () => {
  /** A declaration large enough that writing its tree takes a while. */
  const large = (extra: boolean) =>
    declaration(
      Object.fromEntries(
        Array.from({ length: 40 }, (_, i) => [
          `items${i}s`.replace(/(\d+)s$/, "-$1-things"),
          { fields: { name: "string", ...(extra ? { note: "string" } : {}) } },
        ]),
      ),
    );

  /** Whether a folder is a complete tree as its manifest describes it. */
  function complete(dir: string): boolean {
    const manifest = JSON.parse(readFileSync(path.join(dir, ".codegen-manifest.json"), "utf8")) as { files: Record<string, string> };
    return Object.entries(manifest.files).every(([file, hash]) => {
      const text = readFileSync(path.join(dir, file), "utf8");
      return matchesHash(file, text, hash);
    });
  }

  it("leaves the old tree or the new one, never a mix, and the next run cleans up", async () => {
    const dir = project("killed", large(false));
    expect(codegen(dir, ["api.yaml", "-o", "out"]).code).toBe(0);
    writeFileSync(path.join(dir, "out/mine.txt"), "keep me\n");
    const oldTree = tree(path.join(dir, "out"));
    writeFileSync(path.join(dir, "api.yaml"), stringify(large(true)));
    const fresh = path.join(dir, ".out.codegen-new");
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      const child: ChildProcess = spawn(process.execPath, [BIN, "api.yaml", "-o", "out", "--no-format"], { cwd: dir, stdio: "ignore" });
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      // Wait until the run starts writing its new tree, then kill it a random moment later.
      const deadline = Date.now() + 15_000;
      while (!existsSync(fresh) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 15)));
      child.kill("SIGKILL");
      await exited;
      const out = path.join(dir, "out");
      if (existsSync(out)) {
        expect(complete(out)).toBe(true);
        const now = tree(out);
        outcomes.push(JSON.stringify(now) === JSON.stringify(oldTree) ? "old" : "new");
        expect(readFileSync(path.join(out, "mine.txt"), "utf8")).toBe("keep me\n");
      } else {
        // Killed between the two renames: the complete old tree waits beside the folder.
        expect(complete(path.join(dir, ".out.codegen-old"))).toBe(true);
        outcomes.push("between");
      }
      // The next run puts everything right and leaves no temporary folder behind.
      expect(codegen(dir, ["api.yaml", "-o", "out", "--no-format"]).code).toBe(0);
      expect(readdirSync(dir).filter((name) => name.startsWith(".out."))).toEqual([]);
      expect(complete(out)).toBe(true);
      // Back to the old declaration's tree for the next attempt.
      writeFileSync(path.join(dir, "api.yaml"), stringify(large(false)));
      expect(codegen(dir, ["api.yaml", "-o", "out", "--no-format"]).code).toBe(0);
      writeFileSync(path.join(dir, "api.yaml"), stringify(large(true)));
    }
    expect(outcomes).toHaveLength(4);
  }, 120_000);
});

describe("--watch", () => {
  it("regenerates after an edit, keeps watching through an invalid one, and stops cleanly on Ctrl-C", async () => {
    const dir = project("watch", one);
    const child = spawn(process.execPath, [BIN, "api.yaml", "-o", "out", "--watch"], { cwd: dir, env: { ...process.env, NO_COLOR: "1" } });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (t: string) => (stdout += t));
    child.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t));
    const until = async (check: () => boolean, what: string) => {
      const deadline = Date.now() + 20_000;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${stdout} ${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    try {
      await until(() => stdout.includes("watching api.yaml"), "the first run");
      writeFileSync(path.join(dir, "api.yaml"), "codegen: 1\ninfo: { title: Shop, version: '1' }\nresources:\n  products:\n    feilds: {}\n");
      await until(() => stderr.includes("did you mean `fields`?"), "the diagnostics of an invalid edit");
      // Progress: a line when the change is seen, one when the failed run ends (with its time).
      expect(stdout).toContain("api.yaml changed: generating\n");
      await until(() => /api\.yaml: not generated \(\d+ ms\)/.test(stderr), "the end of the failed run");
      writeFileSync(path.join(dir, "api.yaml"), stringify(two));
      // The summary line is printed once the new tree is in place.
      await until(() => (stdout.match(/^wrote /gm)?.length ?? 0) >= 2, "the regeneration");
      expect(existsSync(path.join(dir, "out/resources/orders.gen.ts"))).toBe(true);
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.kill("SIGINT");
      expect(await exited).toBe(0);
    }
  }, 60_000);
});

// The real `codegen` binary as a child process, on the current sources: src/ is transpiled into a
// temporary copy of the package (dist/ beside templates/, package.json and node_modules), so a
// test runs what `npm run build` would give without rewriting the repository's dist/ under the
// other test files that use it meanwhile.

import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { compileToJavaScript } from "../../src/serve/compile.js";
import { ROOT } from "./fixtures.js";

/** A temporary copy of the package, built from the current sources. */
export type BuiltCli = {
  /** Its bin/codegen.js. */
  readonly bin: string;
  /** Its dist/ folder, the compiled modules. */
  readonly dist: string;
  /** Removes the copy. */
  dispose(): void;
};

/**
 * Transpiles src/ and runtime/ (types erased, as `codegen serve` compiles generated code) into a
 * temporary package copy, laid out as `npm run build` lays them out: src/ in dist/, runtime/ in dist/runtime/.
 */
export async function buildCli(): Promise<BuiltCli> {
  const root = mkdtempSync(path.join(tmpdir(), "codegen-bin-"));
  for (const [from, to] of [
    ["src", "dist"],
    ["runtime", "dist/runtime"],
  ] as const) {
    const sources = readdirSync(path.join(ROOT, from), { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts"))
      .map((file) => ({ path: file, contents: readFileSync(path.join(ROOT, from, file), "utf8") }));
    // Not the package.json that marks compiled output as ES modules: the package's own, with its
    // "imports", is the one that must hold for dist/.
    for (const file of (await compileToJavaScript(sources)).filter((f) => f.path !== "package.json")) {
      const target = path.join(root, to, file.path);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, file.contents);
    }
  }
  mkdirSync(path.join(root, "bin"));
  copyFileSync(path.join(ROOT, "bin/codegen.js"), path.join(root, "bin/codegen.js"));
  copyFileSync(path.join(ROOT, "package.json"), path.join(root, "package.json"));
  symlinkSync(path.join(ROOT, "runtime"), path.join(root, "runtime"), "dir");
  symlinkSync(path.join(ROOT, "templates"), path.join(root, "templates"), "dir");
  symlinkSync(path.join(ROOT, "node_modules"), path.join(root, "node_modules"), "dir");
  return { bin: path.join(root, "bin/codegen.js"), dist: path.join(root, "dist"), dispose: () => rmSync(root, { recursive: true, force: true }) };
}

/** A started `codegen` process: the child, and everything it printed so far. */
export type CliProcess = { readonly child: ChildProcess; output(): string; exited: Promise<number | null> };

/** Starts `node <bin> ...args` in `cwd` with `env` added; its stdout and stderr are collected. */
export function startCli(cli: BuiltCli, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): CliProcess {
  return startNode([cli.bin, ...args], cwd, env);
}

/** Starts `node ...args` in `cwd` with `env` added; its stdout and stderr are collected. */
export function startNode(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): CliProcess {
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, NO_COLOR: "1", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => void (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => void (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Waits until the process has printed `pattern` (its match), exited, or `ms` passed. */
export async function waitForOutput(started: CliProcess, pattern: RegExp, ms: number): Promise<RegExpMatchArray> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const match = started.output().match(pattern);
    if (match) return match;
    if (started.child.exitCode !== null || started.child.signalCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no ${pattern} from the process (exit ${started.child.exitCode}):\n${started.output()}`);
}

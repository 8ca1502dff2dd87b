import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { main } from "../../src/cli.js";
import { memoryHost } from "../support/memory-host.js";
import { ROOT, runCli } from "../support/fixtures.js";

const blog = "fixtures/valid/blog/declaration.yaml";
const scratch = mkdtempSync(path.join(tmpdir(), "codegen-cli-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("codegen command line", () => {
  it.each(["openapi", "validate", "schema"])("shows an example in `%s --help` and exits 0", async (command) => {
    const result = await runCli([command, "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Example:\n\s+\$ codegen /);
  });

  it("prints the help for a bare `codegen`, exit 0", async () => {
    const result = await runCli([]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(/^Usage: codegen \[options\] \[command\]\n/);
    expect(result.stdout).toMatch(/Commands:\n(.*\n)* {2}serve /);
  });

  it.each([
    ["genrate", "generate"],
    ["genrate api.yaml", "generate"],
    ["sreve", "serve"],
    ["Validate", "validate"],
    ["inti", "init"],
  ])("`codegen %s` is an unknown command: exit 2, the nearest suggested", async (words, nearest) => {
    const result = await runCli(words.split(" "));
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: `codegen: error: unknown command '${words.split(" ")[0]}' (did you mean ${nearest}?)\nRun codegen --help for the commands.\n`,
    });
  });

  it("suggests nothing for a word unlike every command, and takes a word that is a file, a path or an input's name as the input", async () => {
    expect((await runCli(["frobnicator"])).stderr).toBe("codegen: error: unknown command 'frobnicator'\nRun codegen --help for the commands.\n");
    const host = memoryHost({ "/work/genrate": "codegen: 1\n" });
    expect(await main(["genrate"], host)).toBe(1);
    expect(host.err).not.toMatch(/unknown command/);
    for (const input of ["missing.yaml", "sub/genrate"]) {
      const result = await runCli([input]);
      expect(result.code, input).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^${input}:1:1: error: `));
    }
  });

  it.each([70, 80, 120])("wraps help at word boundaries to a %i-column terminal", async (columns) => {
    const host = Object.assign(memoryHost(), { columns });
    expect(await main(["serve", "--help"], host)).toBe(0);
    const lines = host.out.split("\n");
    const [, examples] = host.out.split("Example:\n");
    // The examples are shown as written; every other line fits and breaks only between words.
    const wrapped = lines.slice(0, lines.length - examples!.split("\n").length);
    for (const line of wrapped) expect(line.length, line).toBeLessThanOrEqual(columns);
    const words = (text: string) => text.replace(/\s+/g, " ").trim().split(" ");
    const wide = Object.assign(memoryHost(), { columns: 10_000 });
    await main(["serve", "--help"], wide);
    expect(words(host.out)).toEqual(words(wide.out));
    expect(host.out).toContain("the same port");
  });

  it("prints the package version", async () => {
    const result = await runCli(["--version"]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).version);
  });

  it.each([[["openapi"]], [["--frobnicate"]], [["openapi", blog, "--format", "xml"]], [["validate", blog, "--nope"]]])(
    "exits 2 on wrong usage: %j",
    async (argv) => {
      const result = await runCli(argv);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/error/);
    },
  );

  it.each(["0", "-5", "1.5", "1e3", "soon"])("serve --token-lifetime %s: a usage error naming the option, exit 2", async (value) => {
    const result = await runCli(["serve", blog, "--token-lifetime", value]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("codegen: error: --token-lifetime must be a whole number of seconds, at least 1\n");
  });

  it("validate prints nothing and exits 0 for a valid declaration", async () => {
    expect(await runCli(["validate", blog])).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("reports a missing file as FILE:1:1 and exits 1", async () => {
    const result = await runCli(["validate", "fixtures/no-such.yaml"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^fixtures\/no-such\.yaml:1:1: error: cannot read .*no such file/);
  });

  it("points at the byte that makes a file not text: one that is not UTF-8, or a NUL", async () => {
    const cases: [bytes: Buffer, place: string][] = [
      [Buffer.from('codegen: 1\ninfo: {title: caf\xe9, version: "1"}\n', "latin1"), "2:18"],
      // A U+FFFD the file spells out is text: the bad byte after it is the one named.
      [Buffer.concat([Buffer.from("\ufeffcodegen: 1 # \ufffd ", "utf8"), Buffer.from([0xff])]), "1:16"],
      [Buffer.from("codegen: 1\ninfo:\u0000\n"), "2:6"],
    ];
    for (const [bytes, place] of cases) {
      const file = path.join(scratch, "not-text.yaml");
      writeFileSync(file, bytes);
      const result = await runCli(["validate", file]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^${file}:${place}: error: the file is not UTF-8 text`));
    }
  });

  it("writes the document to -o FILE, JSON by extension", async () => {
    const out = path.join(scratch, "blog.json");
    const result = await runCli(["openapi", blog, "-o", out]);
    expect(result).toMatchObject({ code: 0, stdout: "" });
    const yamlText = (await runCli(["openapi", blog])).stdout;
    expect(JSON.parse(readFileSync(out, "utf8"))).toEqual(parse(yamlText));
  });

  it("leaves -o FILE untouched when the input is invalid", async () => {
    const out = path.join(scratch, "never.yaml");
    const result = await runCli(["openapi", "fixtures/invalid/unknown-key/declaration.yaml", "-o", out]);
    expect(result.code).toBe(1);
    expect(existsSync(out)).toBe(false);
  });

  it("runs as the installed binary, without colour when NO_COLOR is set", () => {
    const bin = path.join(ROOT, "bin/codegen.js");
    const version = execFileSync(process.execPath, [bin, "--version"], { encoding: "utf8" });
    expect(version.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const failed = spawnSync(process.execPath, [bin, "validate", "fixtures/invalid/unknown-key/declaration.yaml"], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(failed.status).toBe(1);
    expect(failed.stderr).not.toContain("\u001b[");
    expect(failed.stderr).toContain("did you mean `fields`?");
  });
});

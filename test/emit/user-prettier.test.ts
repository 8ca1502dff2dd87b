// `generate --prettier` formats with the prettier and configuration of the project the
// output folder is in (not codegen's own pinned options), and says so clearly when there is none.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, declarationOf, runCli } from "../support/fixtures.js";

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-prettier-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("generate --prettier", () => {
  it("formats with the project's prettier and its .prettierrc", async () => {
    const project = path.join(scratch, "with");
    mkdirSync(path.join(project, "node_modules"), { recursive: true });
    symlinkSync(path.join(ROOT, "node_modules/prettier"), path.join(project, "node_modules/prettier"));
    writeFileSync(path.join(project, "package.json"), "{}\n");
    writeFileSync(path.join(project, ".prettierrc"), JSON.stringify({ singleQuote: true, semi: false, printWidth: 80 }));
    const out = path.join(project, "src/generated");
    const result = await runCli(["generate", declarationOf("valid", "blog"), "-o", out, "--prettier", "-q"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const server = readFileSync(path.join(out, "server.gen.ts"), "utf8");
    expect(server).toContain("import { document } from './document.gen.js'\n");
    const plain = await runCli(["generate", declarationOf("valid", "blog"), "-o", path.join(scratch, "plain"), "-q"]);
    expect(plain.code).toBe(0);
    expect(readFileSync(path.join(scratch, "plain/server.gen.ts"), "utf8")).toContain('import { document } from "./document.gen.js";\n');
  }, 120_000);

  it("formats again after the project's .prettierrc changes, the declaration unchanged", async () => {
    const project = path.join(scratch, "config-edit");
    mkdirSync(path.join(project, "node_modules"), { recursive: true });
    symlinkSync(path.join(ROOT, "node_modules/prettier"), path.join(project, "node_modules/prettier"));
    writeFileSync(path.join(project, "package.json"), "{}\n");
    writeFileSync(path.join(project, ".prettierrc"), JSON.stringify({ singleQuote: true }));
    const out = path.join(project, "src/generated");
    const args = ["generate", declarationOf("valid", "blog"), "-o", out, "--prettier", "-q"];
    expect((await runCli(args)).code).toBe(0);
    expect(readFileSync(path.join(out, "server.gen.ts"), "utf8")).toContain("from './document.gen.js';\n");
    writeFileSync(path.join(project, ".prettierrc"), JSON.stringify({ singleQuote: false, semi: false }));
    const again = await runCli(args);
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect(readFileSync(path.join(out, "server.gen.ts"), "utf8")).toContain('from "./document.gen.js"\n');
  }, 120_000);

  it("refuses clearly where the project has no prettier", async () => {
    const out = path.join(scratch, "without/src/generated");
    const result = await runCli(["generate", declarationOf("valid", "minimal"), "-o", out, "--prettier"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("[output/no-prettier]");
    expect(result.stderr).toContain("npm install --save-dev prettier");
  }, 60_000);

  it("refuses the same way where the project's `prettier` is not prettier 3 (no format function)", async () => {
    const project = path.join(scratch, "impostor");
    mkdirSync(path.join(project, "node_modules/prettier"), { recursive: true });
    writeFileSync(path.join(project, "package.json"), "{}\n");
    writeFileSync(path.join(project, "node_modules/prettier/package.json"), JSON.stringify({ name: "prettier", main: "index.js" }));
    writeFileSync(path.join(project, "node_modules/prettier/index.js"), "module.exports = { version: '1.0.0' };\n");
    const result = await runCli(["generate", declarationOf("valid", "minimal"), "-o", path.join(project, "src/generated"), "--prettier"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("[output/no-prettier]");
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});

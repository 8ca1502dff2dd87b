// The runtime (runtime/*.gen.ts, copied into every output) is code of this repository like src/:
// it type-checks under its own strictest tsconfig, without the DOM's types (it runs on Node), and
// `npm run lint`'s ESLint reads every file of it.
import { readdirSync } from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/fixtures.js";

const RUNTIME = path.join(ROOT, "runtime");
const files = readdirSync(RUNTIME).filter((name) => name.endsWith(".gen.ts"));

// A program of 14 files with @types/node: some seconds, more on a loaded machine.
describe("the runtime as first-class code", { timeout: 180_000 }, () => {
  it("type-checks under runtime/tsconfig.json, strictest options and no DOM", () => {
    const config = ts.getParsedCommandLineOfConfigFile(path.join(RUNTIME, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
    expect(config.errors).toEqual([]);
    expect(config.fileNames.map((file) => path.basename(file)).sort()).toEqual([...files].sort());
    const options = config.options;
    expect(options).toMatchObject({
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      noPropertyAccessFromIndexSignature: true,
      noImplicitReturns: true,
      noImplicitOverride: true,
      noFallthroughCasesInSwitch: true,
      noUnusedLocals: true,
      noUnusedParameters: true,
      allowUnreachableCode: false,
      allowUnusedLabels: false,
    });
    expect((options.lib ?? []).some((lib) => /dom/i.test(lib))).toBe(false);
    const program = ts.createProgram({ rootNames: config.fileNames, options: { ...options, noEmit: true } });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(problems).toEqual([]);
  });

  it("is linted by ESLint (none of its files ignored) and has no problem", async () => {
    const eslint = new ESLint({ cwd: ROOT });
    for (const file of files) expect(await eslint.isPathIgnored(path.join(RUNTIME, file)), file).toBe(false);
    const results = await eslint.lintFiles(files.map((file) => path.join(RUNTIME, file)));
    expect(results.flatMap((result) => result.messages.map((m) => `${path.basename(result.filePath)}:${m.line}: ${m.message}`))).toEqual([]);
  });
});

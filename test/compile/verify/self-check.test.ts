// Verifying codegen's own expansion (swagger-parser + ajv) is a self-check, off the hot
// path of generate and openapi; `codegen validate` runs it on every valid fixture.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { declarationOf, fixtureCases, runCli } from "../../support/fixtures.js";

const calls = vi.hoisted(() => ({ verify: 0 }));
vi.mock("../../../src/compile/verify/verify.js", async (original) => {
  const real = await original<typeof import("../../../src/compile/verify/verify.js")>();
  return {
    ...real,
    verifyDocument: (...args: Parameters<typeof real.verifyDocument>) => {
      calls.verify++;
      return real.verifyDocument(...args);
    },
  };
});

beforeEach(() => void (calls.verify = 0));
// Generated into a folder of its own: the goldens hold a first migration no manifest records.
const scratch = mkdtempSync(path.join(tmpdir(), "codegen-self-check-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the self-check of codegen's own expansion", () => {
  it("does not run in generate or openapi", async () => {
    const file = declarationOf("valid", "blog");
    const openapi = await runCli(["openapi", file]);
    expect(openapi.code, openapi.stderr).toBe(0);
    const generate = await runCli(["generate", file, "-q", "-o", path.join(scratch, "one")]);
    expect(generate.code, generate.stderr).toBe(0);
    expect(calls.verify).toBe(0);
  });

  it.each(fixtureCases("valid"))("runs in codegen validate and passes: %s", async (name) => {
    const result = await runCli(["validate", declarationOf("valid", name)]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(calls.verify).toBe(1);
  });
});

describe("modules loaded only by the commands that need them", () => {
  // Why the renderer and not the `handlebars` package: the renderer reads Handlebars through
  // createRequire (its runtime only, when the build precompiled the templates), which no ESM mock
  // sees; test/compile/generator-work.test.ts checks the packages a child process loads.
  it("openapi and validate do not load the renderer (Handlebars); generate does", async () => {
    vi.resetModules();
    const loads = { renderer: 0 };
    vi.doMock("../../../src/emit/render.js", async () => {
      loads.renderer++;
      return await vi.importActual("../../../src/emit/render.js");
    });
    const { runCli: fresh } = await import("../../support/fixtures.js");
    const file = declarationOf("valid", "blog");
    expect((await fresh(["openapi", file])).code).toBe(0);
    expect((await fresh(["validate", file])).code).toBe(0);
    expect(loads.renderer).toBe(0);
    expect((await fresh(["generate", file, "-q", "-o", path.join(scratch, "two")])).code).toBe(0);
    expect(loads.renderer).toBe(1);
    vi.doUnmock("../../../src/emit/render.js");
  });
});

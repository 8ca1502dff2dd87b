// The templates are precompiled when the package is built (src/emit/render.ts); a
// run uses a precompiled template only when it was made from the very source it renders.
import { createRequire } from "node:module";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ROOT } from "../support/fixtures.js";

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-precompiled-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("precompiled templates", () => {
  it("are written one per template, each under the key its source has at run time", async () => {
    const { loadTemplateSources } = await import("../../src/pipeline.js");
    const { templateKey, writePrecompiledTemplates } = await import("../../src/emit/render.js");
    const sources = loadTemplateSources();
    const file = path.join(scratch, "precompiled.cjs");
    writePrecompiledTemplates(sources, file);
    const written = createRequire(import.meta.url)(file) as Record<string, unknown>;
    const all = [...Object.values(sources.templates), sources.resource, sources.operationGroup];
    expect(all.length).toBeGreaterThan(5);
    expect(Object.keys(written).sort()).toEqual(all.map(templateKey).sort());
  });

  it("are not used for a template edited since the build: it is compiled as it stands", async () => {
    vi.resetModules();
    const run = await import("../../src/pipeline.js");
    const { nodeHost } = await import("../../src/host.js");
    const templates = run.loadTemplateSources().templates as Record<string, string>;
    templates["index.gen.ts.hbs"] = `${templates["index.gen.ts.hbs"]}// edited since the build\n`;
    const file = path.join(ROOT, "fixtures/valid/blog/declaration.yaml");
    const outcome = await run.generateFiles({ ...nodeHost(), cwd: ROOT }, file, readFileSync(file, "utf8"), { outDir: scratch, format: false });
    expect(outcome.diagnostics).toEqual([]);
    expect(outcome.value!.find((f) => f.path === "index.gen.ts")!.contents).toMatch(/\/\/ edited since the build\n$/);
  });
});

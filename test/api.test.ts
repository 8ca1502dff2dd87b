import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expand, formatDiagnostics, generate } from "../src/index.js";
import { ROOT } from "./support/fixtures.js";

describe("the programmatic API", () => {
  it("generate returns every file without writing any", async () => {
    const outDir = "never-written";
    const { files, diagnostics } = await generate({ input: "fixtures/valid/blog/declaration.yaml", outDir, cwd: ROOT });
    expect(diagnostics).toEqual([]);
    expect(files.map((f) => f.path)).toEqual(expect.arrayContaining(["openapi.yaml", "server.gen.ts", "resources/articles.gen.ts", "runtime/dispatch.gen.ts"]));
    expect(existsSync(path.join(ROOT, outDir))).toBe(false);
    // The same files as the golden tree (which was written with -o fixtures/valid/blog/expected).
    const again = await generate({ input: "fixtures/valid/blog/declaration.yaml", outDir: "fixtures/valid/blog/expected", cwd: ROOT });
    const server = again.files.find((f) => f.path === "server.gen.ts")!;
    expect(server.contents).toBe(readFileSync(path.join(ROOT, "fixtures/valid/blog/expected/server.gen.ts"), "utf8"));
  });

  it("generate takes the text itself, and answers diagnostics for a bad declaration", async () => {
    const { files, diagnostics } = await generate({ input: "api.yaml", text: "codegen: 1\ninfo: {title: A, version: '1'}\nresources: {}\n" });
    expect(files).toEqual([]);
    expect(diagnostics.map((d) => d.code)).toEqual(["decl/too-few"]);
    expect(formatDiagnostics(diagnostics, { sources: new Map(), colour: false })).toMatch(/^api\.yaml:3:12: error: /);
  });

  it("expand returns the verified OpenAPI document", async () => {
    const { document, diagnostics } = await expand({ input: "fixtures/valid/minimal/declaration.yaml", cwd: ROOT });
    expect(diagnostics).toEqual([]);
    expect(document?.openapi).toBe("3.1.1");
    expect(Object.keys(document?.paths ?? {})).toEqual(["/", "/notes", "/notes/{id}"]);
  });
});

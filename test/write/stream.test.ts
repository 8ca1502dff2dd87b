// generateIntoFolder writes each file into the new tree as it is rendered (src/write/apply.ts,
// writeFiles; a small file once the thread pool has made it, src/write/writer.ts), so the files of
// a large API are never all held at once; the guarantees stay: the new tree is swapped in whole,
// and a file edited by hand stops the run with nothing written.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { stringify } from "yaml";

/** Each file renderFiles hands out, and the most text handed out but not yet in the new tree when the next is asked for. */
const seen = vi.hoisted(() => ({ out: "", files: [] as { path: string; contents: string }[], mostUnwritten: 0 }));
vi.mock("../../src/emit/render.js", async (original) => {
  const real = await original<typeof import("../../src/emit/render.js")>();
  return {
    ...real,
    renderFiles: function* (...args: Parameters<typeof real.renderFiles>) {
      for (const file of real.renderFiles(...args)) {
        // Before handing out the next file: how much of the text handed out is not in the new tree yet.
        const fresh = path.join(path.dirname(seen.out), `.${path.basename(seen.out)}.codegen-new`);
        let unwritten = 0;
        for (const earlier of seen.files) {
          const at = path.join(fresh, earlier.path);
          if (!existsSync(at) || readFileSync(at, "utf8") !== earlier.contents) unwritten += earlier.contents.length;
        }
        seen.mostUnwritten = Math.max(seen.mostUnwritten, unwritten);
        seen.files.push(file);
        yield file;
      }
    },
  };
});
const { generateIntoFolder } = await import("../../src/pipeline.js");
const { nodeHost } = await import("../../src/host.js");

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-stream-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const declaration = (fields: Record<string, string>) =>
  stringify({ codegen: 1, info: { title: "Shop", version: "1.0.0" }, resources: { products: { fields }, orders: { fields: { total: "number" } } } });

const generate = (cwd: string, text: string) => generateIntoFolder({ ...nodeHost(), cwd }, "api.yaml", text, { outDir: "out", check: false, force: false });

/** Every file under a folder with its text. */
const contents = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => [path.relative(dir, path.join(entry.parentPath, entry.name)), readFileSync(path.join(entry.parentPath, entry.name), "utf8")]),
  );

describe("generating into a folder", () => {
  it("holds at most a megabyte of rendered text not yet in the new tree, and swaps in the same files", async () => {
    const cwd = path.join(scratch, "fresh");
    seen.out = path.join(cwd, "out");
    seen.files = [];
    seen.mostUnwritten = 0;
    // Enough resources that their files are twice what may wait (writer.ts, WAITING_UNITS).
    const resources = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`r${i}-things`, { fields: { name: "string", size: "integer" } }]));
    const text = stringify({ codegen: 1, info: { title: "Shop", version: "1.0.0" }, resources });
    rmSync(cwd, { recursive: true, force: true });
    (await import("node:fs")).mkdirSync(cwd, { recursive: true });
    const outcome = await generate(cwd, text);
    expect(outcome.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(seen.files.length).toBeGreaterThan(60);
    expect(seen.files.reduce((sum, file) => sum + file.contents.length, 0)).toBeGreaterThan(2 * 1024 * 1024);
    expect(seen.mostUnwritten).toBeLessThanOrEqual(1024 * 1024);
    // The folder holds what was rendered, and the manifest lists every file; no new tree is left beside it.
    const written = contents(seen.out);
    for (const file of seen.files) expect(written[file.path]).toBe(file.contents);
    const manifest = JSON.parse(written[".codegen-manifest.json"]!) as { files: Record<string, string> };
    expect(Object.keys(manifest.files).sort()).toEqual(
      Object.keys(written)
        .filter((file) => file !== ".codegen-manifest.json")
        .sort(),
    );
    expect(existsSync(path.join(cwd, ".out.codegen-new"))).toBe(false);
  });

  it("stops at a file edited by hand, late in the order, with every file as it was and no new tree left", async () => {
    const cwd = path.join(scratch, "edited");
    seen.out = path.join(cwd, "out");
    rmSync(cwd, { recursive: true, force: true });
    (await import("node:fs")).mkdirSync(cwd, { recursive: true });
    await generate(cwd, declaration({ name: "string" }));
    // A runtime file comes last: every file before it that the new declaration changes was written into the new tree first.
    const edited = path.join(seen.out, "runtime/http.gen.ts");
    writeFileSync(edited, readFileSync(edited, "utf8") + "export const mine = 1;\n");
    const before = contents(seen.out);
    seen.files = [];
    const outcome = await generate(cwd, declaration({ name: "string", colour: "string" }));
    expect(outcome.diagnostics.map((d) => d.code)).toContain("output/edited-by-hand");
    expect(seen.files.length).toBeGreaterThan(10);
    expect(contents(seen.out)).toEqual(before);
    expect(existsSync(path.join(cwd, ".out.codegen-new"))).toBe(false);
  });
});

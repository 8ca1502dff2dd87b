// The file sink (src/write/writer.ts): a small file is made by the thread pool and written when it
// answers, a large one (or one that would leave too much text waiting) at once. Either way the
// bytes and the hashes are those of the text, and a file that cannot be made fails the run.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it, vi } from "vitest";

const calls = vi.hoisted(() => ({ open: 0, openSync: 0 }));
vi.mock("node:fs", async (original) => {
  const real = await original<typeof import("node:fs")>();
  return {
    ...real,
    open: ((...args: Parameters<typeof real.open>) => {
      calls.open++;
      return (real.open as (...a: unknown[]) => void)(...args);
    }) as typeof real.open,
    openSync: (...args: Parameters<typeof real.openSync>) => {
      calls.openSync++;
      return real.openSync(...args);
    },
  };
});
const { fileSink } = await import("../../src/write/writer.js");
const { codeShapeHash } = await import("../../src/write/code-shape.js");
const { hashOf } = await import("../../src/write/plan.js");

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-writer-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** What the sink must give for `text`: the hash of its bytes, and its code shape where asked. */
const expected = (text: string, shape: boolean) => ({ bytes: hashOf(text), ...(shape ? { shape: codeShapeHash(text) } : {}) });

/** Write `contents` into a new folder through a sink, each file's code shape asked for every other file. */
async function writeAll(dir: string, contents: readonly string[]) {
  mkdirSync(dir, { recursive: true });
  const sink = fileSink(dir);
  for (const [i, text] of contents.entries()) await sink.write(`f${i}.ts`, text, i % 2 === 0);
  const written = await sink.settle();
  return contents.map((_, i) => written.get(`f${i}.ts`));
}

describe("the file sink", () => {
  it("writes each text's bytes and gives their hashes, whether the pool made the file or this thread did", async () => {
    // Empty, small, and over the bound on waiting text; characters of 1 to 4 bytes and a lone surrogate.
    const contents = Array.from({ length: 400 }, (_, i) => {
      if (i === 0) return "";
      if (i % 97 === 0) return `export const big${i} = "é€😀";\n`.repeat(60_000);
      return `// ${i}: é€😀 \ud800\nexport const value${i}: { 'a': string | number } = { "a": (${i}) };\n`.repeat(1 + (i % 40));
    });
    calls.open = 0;
    calls.openSync = 0;
    const written = await writeAll(path.join(scratch, "mixed"), contents);
    contents.forEach((text, i) => {
      expect(written[i], `file ${i}`).toEqual(expected(text, i % 2 === 0));
      expect(readFileSync(path.join(scratch, "mixed", `f${i}.ts`)).equals(Buffer.from(text)), `file ${i}`).toBe(true);
    });
    // Both ways were taken: the large files at once, most of the small ones through the pool.
    expect(calls.openSync).toBeGreaterThanOrEqual(4);
    expect(calls.open).toBeGreaterThan(200);
    expect(calls.open + calls.openSync).toBe(contents.length);
  });

  it("gives any text's hashes", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: "binary", maxLength: 3000 }), { maxLength: 30 }), async (contents) => {
        const written = await writeAll(path.join(scratch, `any-${run++}`), contents);
        contents.forEach((text, i) => expect(written[i]).toEqual(expected(text, i % 2 === 0)));
      }),
      { numRuns: 25 },
    );
  });

  it("fails the run when the pool cannot make a file, and overwrites nothing", async () => {
    const dir = path.join(scratch, "taken");
    mkdirSync(dir);
    writeFileSync(path.join(dir, "f0.ts"), "not ours\n");
    const sink = fileSink(dir);
    calls.open = 0;
    await sink.write("f0.ts", "export {};\n", true);
    await sink.write("f1.ts", "export {};\n", true);
    expect(calls.open).toBe(2);
    await expect(sink.settle()).rejects.toThrow(/EEXIST/);
    expect(readFileSync(path.join(dir, "f0.ts"), "utf8")).toBe("not ours\n");
  });
});

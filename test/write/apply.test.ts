// newTree (src/write/apply.ts) writes the new tree beside the folder and swaps it in.
// Each folder of the new tree is made and looked at once, not once per file in it; a link that
// stands where a folder goes is still refused.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";

const calls = vi.hoisted(() => ({ mkdir: [] as string[], largestWrite: 0 }));
vi.mock("node:fs", async (original) => {
  const real = await original<typeof import("node:fs")>();
  return {
    ...real,
    mkdirSync: (...args: Parameters<typeof real.mkdirSync>) => {
      calls.mkdir.push(String(args[0]));
      return real.mkdirSync(...args);
    },
    writeSync: (...args: Parameters<typeof real.writeSync>) => {
      const data = args[1];
      calls.largestWrite = Math.max(calls.largestWrite, typeof data === "string" ? data.length : (data as ArrayBufferView).byteLength);
      return real.writeSync(...args);
    },
    writeFileSync: (...args: Parameters<typeof real.writeFileSync>) => {
      const data = args[1];
      calls.largestWrite = Math.max(calls.largestWrite, typeof data === "string" ? data.length : (data as ArrayBufferView).byteLength);
      return real.writeFileSync(...args);
    },
  };
});
const { newTree } = await import("../../src/write/apply.js");
const { MANIFEST, hashOf, manifestTextOf, parseManifest } = await import("../../src/write/plan.js");

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-apply-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Write `files` as new into `dir` through a new tree, with a manifest of their bytes' hashes, and swap it in. */
async function writeNew(dir: string, files: readonly { path: string; contents: string }[]): Promise<void> {
  const tree = newTree(dir);
  for (const file of files) await tree.write(file, false);
  const written = await tree.settle();
  const entries = files.map((file) => ({ path: file.path, shape: "", bytes: written.get(file.path)!.bytes }));
  tree.commit((relative) => !written.has(relative) && relative !== MANIFEST, manifestTextOf(entries));
}

describe("newTree", () => {
  it("makes each folder of the new tree once, however many files it holds", async () => {
    const dir = path.join(scratch, "many");
    const files = [
      { path: "index.gen.ts", contents: "export {};\n" },
      ...Array.from({ length: 300 }, (_, i) => ({ path: `resources/deep/r${i}.gen.ts`, contents: `export const r${i} = ${i};\n` })),
      ...Array.from({ length: 50 }, (_, i) => ({ path: `runtime/f${i}.gen.ts`, contents: `// ${i}\n` })),
    ];
    calls.mkdir = [];
    await writeNew(dir, files);
    for (const file of files) expect(readFileSync(path.join(dir, file.path), "utf8")).toBe(file.contents);
    // The new tree itself, resources, resources/deep and runtime: each once (351 files).
    expect(calls.mkdir).toHaveLength(4);
    expect(new Set(calls.mkdir).size).toBe(4);
  });

  it("still refuses to write through a link that stands where a folder goes, and leaves the folder as it was", async () => {
    const dir = path.join(scratch, "linked");
    const victim = path.join(scratch, "victim");
    mkdirSync(victim);
    mkdirSync(dir);
    // A link in the old tree is copied into the new one as the link it is (linkTree), after the
    // new files: where they made a folder of that name, copying it fails.
    symlinkSync(victim, path.join(dir, "runtime"));
    const files = [
      { path: "a.gen.ts", contents: "1\n" },
      { path: "runtime/b.gen.ts", contents: "2\n" },
      { path: "runtime/c.gen.ts", contents: "3\n" },
    ];
    await expect(writeNew(dir, files)).rejects.toThrow(/EEXIST/);
    expect(existsSync(path.join(victim, "b.gen.ts"))).toBe(false);
    expect(existsSync(path.join(dir, "a.gen.ts"))).toBe(false);
  });

  it("writes a large file a piece at a time, its bytes and their hash as one encoding of the whole text", async () => {
    const dir = path.join(scratch, "large");
    // 4 MB of text with two-, three- and four-byte characters: a surrogate pair across the first
    // 64 Ki boundary of code units (where a naive piece would end), and a lone surrogate.
    const text = "é€" + "x".repeat(65_536 - 3) + "😀" + ("é€😀\n" + "y".repeat(1000)).repeat(4000) + "\ud800 end\n";
    expect(text.charCodeAt(65_535)).toBe(0xd83d);
    const files = [
      { path: "big.gen.ts", contents: text },
      { path: "empty.gen.ts", contents: "" },
    ];
    calls.largestWrite = 0;
    await writeNew(dir, files);
    const expected = Buffer.from(text);
    expect(readFileSync(path.join(dir, "big.gen.ts")).equals(expected)).toBe(true);
    expect(readFileSync(path.join(dir, "empty.gen.ts"))).toHaveLength(0);
    const manifest = parseManifest(readFileSync(path.join(dir, MANIFEST), "utf8"));
    expect(manifest.bytes.get("big.gen.ts")).toBe(hashOf(text));
    expect(manifest.bytes.get("empty.gen.ts")).toBe(hashOf(""));
    // Never the whole file's bytes at once: a write is at most a piece (3 bytes for each of 64 Ki code units), the manifest apart.
    expect(expected.byteLength).toBeGreaterThan(4_000_000);
    expect(calls.largestWrite).toBeLessThanOrEqual(3 * 65_536);
  });
});

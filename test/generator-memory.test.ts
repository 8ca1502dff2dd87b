// Issues 14 and 16: a large generation's peak memory is bounded. The peak was garbage V8 had not
// collected (750-860 MB at 1000 resources while 190 MB was live); src/memory.ts collects it at the
// stage boundaries of large generations only. Figures: README's Performance section.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error: the benchmark's generator is plain JavaScript.
import { declarationText } from "../bench/make-declarations.js";
import { nodeHost } from "../src/host.js";
import { LARGE_TEXT, collectGarbageOf, collections } from "../src/memory.js";
import { generateIntoFolder } from "../src/run.js";
import { ROOT } from "./support/fixtures.js";

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-memory-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("garbage collection of large generations", () => {
  it("collects only for a text longer than LARGE_TEXT", () => {
    const before = collections.count;
    collectGarbageOf(undefined);
    collectGarbageOf("x".repeat(LARGE_TEXT));
    expect(collections.count).toBe(before);
    collectGarbageOf("x".repeat(LARGE_TEXT + 1));
    expect(collections.count).toBe(before + 1);
  });

  it("costs the blog fixture nothing: no collection", async () => {
    const file = path.join(ROOT, "fixtures/valid/blog/declaration.yaml");
    const before = collections.count;
    const outcome = await generateIntoFolder({ ...nodeHost(), cwd: scratch }, file, readFileSync(file, "utf8"), {
      outDir: path.join(scratch, "blog"),
      check: false,
      force: false,
    });
    expect(outcome.summary?.written).toBeGreaterThan(0);
    expect(collections.count).toBe(before);
  });

  // Why 360 MB and not nearer the 284-297 MB measured alone: under the suite's other work the
  // heap's growth between collections varies (peaks 80 MB apart for one build under load); the
  // collection count below is what holds the stages' collections in place.
  it("generates 1000 resources within 360 MB of peak memory (750-860 MB before issue 14, 480 MB in this test before the document was written in pieces, 410 after, 325-331 before the view's and rendering's garbage were collected; 284-297 after; 283-287 with compact JSON and three collections)", () => {
    const input = path.join(scratch, "api-1000.yaml");
    writeFileSync(input, declarationText(1000) as string);
    // The CLI in a process of its own, which reports its peak resident set (KB) at the end.
    const script = `import { main } from ${JSON.stringify(path.join(ROOT, "dist/cli.js"))};
import { nodeHost } from ${JSON.stringify(path.join(ROOT, "dist/host.js"))};
process.exitCode = await main(["generate", ${JSON.stringify(input)}, "--output", ${JSON.stringify(path.join(scratch, "out"))}], nodeHost());
console.log("maxRSS", process.resourceUsage().maxRSS);
const { collections } = await import(${JSON.stringify(path.join(ROOT, "dist/memory.js"))});
console.log("collections", collections.count);`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: scratch, encoding: "utf8", timeout: 170_000 });
    expect(run.status, run.stderr).toBe(0);
    const peak = Number(/maxRSS (\d+)/.exec(run.stdout)?.[1]);
    expect(peak).toBeGreaterThan(0);
    expect(peak / 1024).toBeLessThan(360);
    // The stage boundaries where a large generation's garbage goes: after the view, after
    // api.gen.ts is rendered, and before planning the writes (src/run.ts says why not more).
    expect(Number(/collections (\d+)/.exec(run.stdout)?.[1])).toBe(3);
  }, 180_000);
});

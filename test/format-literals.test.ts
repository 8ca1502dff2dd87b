// Issue 16, item 7: formatFiles() sets the served document's long string literals aside while
// prettier runs (it measured them character by character: 4.6 s of a 5 MB document's run). The
// result must be the very bytes prettier gives on the whole file: literals of any text (quotes of
// both kinds, escapes, non-ASCII, wide characters, line separators) in any layout.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatFiles } from "../src/format/format.js";
import { stringLiteral } from "../src/model/escape.js";

/** A file shaped as document.gen.ts is, and one where the literals sit in other places. */
const files = (json: string, yaml: string) => [
  { path: "document.gen.ts", contents: `export const document = { basePath: "", json: ${json}, yaml: ${yaml} };\n` },
  { path: "other.gen.ts", contents: `const a = [${json}, f(${yaml})]; export function f(x: string) { return x + ${json}; }\nexport { a };\n` },
  { path: "openapi.yaml", contents: `a: ${json}\n` },
];

describe("formatFiles with long literals set aside", () => {
  it("gives prettier's own bytes", async () => {
    const unit = fc.oneof(fc.constantFrom('"', "'", "\\", "\n", "\u2028", "`", "${", "é", "漢", "😀", "\t", "x"), fc.string({ maxLength: 3 }));
    await fc.assert(
      fc.asyncProperty(fc.array(unit, { minLength: 0, maxLength: 400 }), fc.array(unit, { maxLength: 400 }), async (a, b) => {
        // Long enough to be set aside (200 characters and up), and sometimes not.
        const json = stringLiteral("{".repeat(a.length % 2 === 0 ? 200 : 0) + a.join(""));
        const yaml = stringLiteral(b.join(""));
        const input = files(json, yaml);
        expect(await formatFiles(input, { literals: [json, yaml] })).toEqual(await formatFiles(input));
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});

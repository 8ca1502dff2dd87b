// A declaration's default and enum values are judged by the format checks of the generated server
// (runtime/validate.gen.ts), so that codegen never accepts a value its own server refuses, nor
// refuses one it takes (src/compile/declaration/values.ts).

import { describe, expect, it } from "vitest";
import { hasFormat as serverHasFormat } from "../../../runtime/validate.gen.js";
import { baseDeclaration, declare } from "../../support/declare.js";

/** Texts on which a hand-written check and the server's have disagreed, and plain ones. */
const CASES: readonly (readonly ["email" | "uri" | "uuid", string])[] = [
  ["email", "ann@example.com"],
  ["email", "a..b@example.com"],
  ["email", ".ann@example.com"],
  ["email", "ann@example..com"],
  ["email", "ann@-example.com"],
  ["uri", "https://example.com/a"],
  ["uri", "mailto:ann@example.com"],
  ["uri", "a:%zz"],
  ["uri", "https://例え.jp"],
  ["uuid", "3fa85f64-5717-4562-b3fc-2c963f66afa6"],
  ["uuid", "3fa85f64-5717-4562-b3fc-2c963f66afa"],
];

/** The problems of a declaration whose `contact` field has this format, default and enum. */
function problemsOf(format: string, value: string): string[] {
  const declaration = baseDeclaration();
  const products = (declaration.resources as Record<string, { fields: Record<string, unknown> }>).products!;
  products.fields.contact = { type: "string", format, default: value };
  products.fields.kind = { type: "string", format, enum: [value] };
  return declare(declaration).diagnostics.map((d) => d.code);
}

describe("a format field's default and enum values", () => {
  it("are accepted exactly when the generated server accepts the text", () => {
    for (const [format, text] of CASES) {
      const served = serverHasFormat(format, text);
      const expected = served ? [] : ["decl/bad-enum-value", "decl/default-invalid"];
      expect([format, text, [...problemsOf(format, text)].sort()]).toEqual([format, text, expected]);
    }
    // The cases hold both answers of the server, so the test says something either way.
    expect(new Set(CASES.map(([format, text]) => serverHasFormat(format, text)))).toEqual(new Set([true, false]));
  });
});

// `generate` warns, at the schema's place (file, line, column), when a declared error response's
// schema is one the server cannot build its own refusals in, saying what it answers instead and
// that `formatError` can supply the shape (docs/openapi.md, "How a server from a document answers
// errors"). The generated server's answers themselves are checked over HTTP by
// test/http/error-shapes.test.ts.

import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { nodeHost } from "../../../src/host.js";
import { generateFiles } from "../../../src/pipeline.js";
import type { Diagnostic } from "../../../src/diagnostics/index.js";
import { ROOT } from "../../support/fixtures.js";

const CODE = "openapi/error-shape-unmapped";

async function warningsOf(file: string, text: string): Promise<Diagnostic[]> {
  const result = await generateFiles({ ...nodeHost(), cwd: ROOT }, file, text, { outDir: "out", format: false });
  expect(result.value, JSON.stringify(result.diagnostics)).toBeDefined();
  return result.diagnostics.filter((d) => d.code === CODE);
}

/** The text at a diagnostic's place. */
const textAt = (text: string, d: Diagnostic) => text.split("\n")[d.location!.line - 1]!.slice(d.location!.column - 1);

describe("the warning for an error schema the server cannot build", () => {
  it("is given once, at the response's own schema, in the fixture of every error shape", async () => {
    const file = "fixtures/openapi/error-shapes/openapi.yaml";
    const text = readFileSync(path.join(ROOT, file), "utf8");
    const found = await warningsOf(file, text);
    // Only `opaque`'s 400 (a required `ref` with a pattern): every common shape is built.
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ severity: "warning", location: { file } });
    expect(textAt(text, found[0]!)).toMatch(/^\{ type: object, required: \[ref\]/);
    expect(found[0]!.message).toContain('for the `400` response of opaque, with the status 400 and codegen\'s own body `{"error", "detail"}`');
    expect(found[0]!.message).toContain("`formatError`");
  });

  it("is given once for a named schema, at its definition, naming its uses and what answers instead", async () => {
    const text = `openapi: 3.1.0
info: { title: Strict errors, version: "1" }
paths:
  /a:
    get:
      operationId: getA
      responses:
        "200": { description: ok }
        "400": { description: refused, content: { application/json: { schema: { $ref: "#/components/schemas/Trace" } } } }
        default: { description: other, content: { application/json: { schema: { type: object, properties: { message: { type: string } } } } } }
  /b:
    get:
      operationId: getB
      responses:
        "200": { description: ok }
        4XX: { description: refused, content: { application/json: { schema: { $ref: "#/components/schemas/Trace" } } } }
components:
  schemas:
    Trace:
      type: object
      required: [traceId]
      properties:
        traceId: { type: string, format: uuid, maxLength: 10, pattern: "^T" }
        count: { type: integer }
`;
    // (A uuid is built; this one's pattern and length rule it out.)
    const found = await warningsOf("strict.yaml", text.replace("format: uuid, ", ""));
    expect(found).toHaveLength(1);
    expect(found[0]!.location).toMatchObject({ file: "strict.yaml", line: 20 });
    // getA's 400 falls to its `default`, which the server can build; getB has nothing else.
    expect(found[0]!.message).toContain(
      "for the `400` response of getA, with the status 400 and the body of its `default` response; for the `4XX` response of getB, with the status of each situation and codegen's own body",
    );
  });

  it("is not given where every declared error shape is built", async () => {
    const text = `openapi: 3.0.3
info: { title: Fine, version: "1" }
paths:
  /a:
    get:
      operationId: getA
      responses:
        "200": { description: ok }
        "422": { description: refused, content: { application/json: { schema: { type: object, properties: { detail: { type: array, items: { type: object } } } } } } }
`;
    expect(await warningsOf("fine.yaml", text)).toEqual([]);
  });
});

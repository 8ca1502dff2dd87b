// Documents written by others. The false refusals of item 1 (refs anywhere, schemas in
// examples and extensions, patterns the `u` flag refuses), lenient reading (item 5: warnings at
// their places, --strict) and Swagger 2.0 input (item 6), each on a small document.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { parse } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import type { Diagnostic } from "../../../src/diagnostics/index.js";
import { nodeHost } from "../../../src/host.js";
import { unicodePattern } from "../../../src/compile/openapi/lenient.js";
import { generateFiles } from "../../../src/pipeline.js";
import { compileTrees } from "../../support/generated-code.js";
import { runCli } from "../../support/fixtures.js";

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-lenient-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Generate a document given as text; the files, the document written and every diagnostic as `LINE:COL severity code`. */
async function generate(name: string, text: string, strict = false) {
  const file = path.join(scratch, `${name}.yaml`);
  writeFileSync(file, text);
  const result = await generateFiles({ ...nodeHost(), cwd: scratch }, file, text, { outDir: path.join(scratch, `${name}-out`), format: false, strict });
  const shown = (d: Diagnostic) => `${d.location?.line}:${d.location?.column} ${d.severity} ${d.code}`;
  const openapi = result.value?.find((f) => f.path === "openapi.yaml")?.contents;
  return {
    files: result.value,
    diagnostics: result.diagnostics.map(shown),
    messages: result.diagnostics.map((d) => d.message),
    document: openapi ? parse(openapi) : undefined,
  };
}

const ok = (schema: string) => `
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: ${schema}`;

describe("false refusals (item 1)", () => {
  it("a $ref to a schema outside components/schemas (a parameter's, a response's) resolves", async () => {
    const { files, diagnostics } = await generate(
      "refs",
      `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /x:
    get:
      operationId: getX
      parameters: [{$ref: "#/components/parameters/x"}]${ok("{type: object, properties: {id: {type: string}}}")}
  /y:
    get:
      operationId: getY
      parameters: [{name: q, in: query, schema: {$ref: "#/components/parameters/x/schema"}}]${ok('{$ref: "#/paths/~1x/get/responses/200/content/application~1json/schema"}')}
components:
  parameters:
    x: {name: x, in: query, schema: {type: string, maxLength: 10}}
`,
    );
    expect(diagnostics).toEqual([]);
    compileTrees([files!], scratch, "refs");
  });

  it("a `schema` key inside an extension or an example is data, not a schema to check", async () => {
    const { files, diagnostics } = await generate(
      "extension-schema",
      `openapi: 3.0.3
info: {title: t, version: "1"}
x-tool: {schema: {type: nonsense}}
paths:
  /a:
    post:
      operationId: postA
      x-thing: {schema: {type: 12}}
      requestBody:
        content:
          application/json:
            schema: {$ref: "#/components/schemas/A"}
            examples: {one: {value: {schema: {type: bogus}}}}
      responses: {"204": {description: done, x-r: {schema: {type: 1}}}}
components:
  schemas:
    A:
      type: object
      example: {schema: {type: bogus}}
      properties:
        example: {$ref: "#/components/schemas/B"}
        schema: {$ref: "#/components/schemas/B"}
    B: {type: string, "x-runscope/nullable": true, "x-with space": 1}
`,
    );
    expect(diagnostics).toEqual([]);
    compileTrees([files!], scratch, "extension-schema");
  });

  it("schemas named after TypeScript's built-in types, and a document without components.schemas, compile", async () => {
    const named = await generate(
      "builtins",
      `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /a:
    get:
      operationId: getA${ok('{$ref: "#/components/schemas/object"}')}
components:
  schemas:
    number: {type: number}
    object: {type: object, properties: {n: {$ref: "#/components/schemas/number"}, s: {$ref: "#/components/schemas/string"}, a: {$ref: "#/components/schemas/any"}}}
    string: {type: string}
    any: {}
    never: {not: {}}
    unknown: {type: integer}
    Array: {type: array, items: {$ref: "#/components/schemas/never"}}
`,
    );
    const none = await generate(
      "no-schemas",
      `openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  /ping:\n    get:\n      operationId: ping${ok("{type: boolean}")}\n`,
    );
    expect([named.diagnostics, none.diagnostics]).toEqual([[], []]);
    compileTrees([named.files!, none.files!], scratch, "builtins");
  });
});

describe("patterns the `u` flag refuses (item 1)", () => {
  it("are read as their authors meant, with a warning at the pattern", async () => {
    const { diagnostics, document, messages } = await generate(
      "patterns",
      `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a:
    get:
      operationId: getA${ok("{$ref: '#/components/schemas/A'}")}
components:
  schemas:
    A:
      type: object
      properties:
        a: {type: string, pattern: '^[a-z\\:]+$'}
        b: {type: string, pattern: '^\\_x\\-y{1,2}$'}
`,
    );
    expect(diagnostics).toEqual(["18:36 warning openapi/pattern-without-u", "19:36 warning openapi/pattern-without-u"]);
    expect(messages[0]).toContain("read as `^[a-z:]+$`");
    const properties = (document.components.schemas.A as { properties: Record<string, { pattern: string }> }).properties;
    expect([properties.a!.pattern, properties.b!.pattern]).toEqual(["^[a-z:]+$", "^_x-y{1,2}$"]);
  });

  it("the names of patternProperties are patterns too: read the same way, and held to the linear-time rule (item 4)", async () => {
    const schema = (name: string) => `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /a:
    get:
      operationId: getA${ok("{$ref: '#/components/schemas/A'}")}
components:
  schemas:
    A:
      type: object
      patternProperties:
        '${name}': {type: string}
`;
    const read = await generate("pattern-names", schema("^\\_x"));
    expect(read.diagnostics).toEqual(["18:17 warning openapi/pattern-without-u"]);
    expect(Object.keys((read.document.components.schemas.A as { patternProperties: object }).patternProperties)).toEqual(["^_x"]);
    // One the linear matcher cannot take is left unchecked, with a warning (test/http/unsafe-patterns.test.ts); an error with --strict.
    const unsafe = await generate("pattern-names-unsafe", schema("^(a)\\1"));
    expect(unsafe.diagnostics).toEqual(["18:19 warning openapi/rendered-otherwise"]);
    expect((await generate("pattern-names-unsafe", schema("^(a)\\1"), true)).diagnostics).toEqual(["18:19 error schema/unsafe-pattern"]);
  });

  it("the rewritten pattern matches exactly the texts the original matches without `u`", () => {
    const patterns = ["^[a-z\\:]+$", "^\\_\\-\\#$", "a{", "x{1,2}}", "\\a\\e\\%", "[\\:\\_]]", "\\{\\_}"];
    for (const pattern of patterns) expect(unicodePattern(pattern), pattern).toBeDefined();
    // Texts over the characters the patterns use.
    const text = fc.string({ unit: fc.constantFrom(..."az:_-#{}]%@.x1e\\"), maxLength: 8 });
    fc.assert(
      fc.property(fc.constantFrom(...patterns), text, (pattern, input) => {
        expect(new RegExp(unicodePattern(pattern)!, "u").test(input)).toBe(new RegExp(pattern).test(input));
      }),
      { numRuns: 2000 },
    );
    // Fine as it is, or invalid either way: left alone.
    expect([unicodePattern("^[a-z]+$"), unicodePattern("(")]).toEqual([undefined, undefined]);
  });
});

describe("lenient reading (item 5)", () => {
  const mistakes = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a:
    get:
      operationId: getA${ok("{$ref: '#/components/schemas/A'}")}
components:
  schemas:
    A:
      type: object
      properties:
        b: {$ref: "#/components/schemas/B", description: the b, maxLength: 3}
        c: {nullable: true, description: anything}
        e: {type: array, items: {type: string}, required: []}
    B: {type: string}
`;

  it("3.0: keywords beside $ref are ignored and `nullable` without `type` dropped, each with a warning at its place", async () => {
    const { files, diagnostics, messages, document } = await generate("mistakes", mistakes);
    expect(diagnostics).toEqual(["18:12 warning openapi/ref-siblings-ignored", "19:23 warning openapi/nullable-without-type"]);
    // Only the keyword that changes what is accepted is named; the description is dropped without a word.
    expect(messages[0]).toMatch(/^`maxLength` beside `\$ref` is ignored/);
    const properties = document.components.schemas.A.properties as Record<string, object>;
    expect(properties.b).toEqual({ $ref: "#/components/schemas/B" });
    expect(properties.c).toEqual({ description: "anything" });
    compileTrees([files!], scratch, "mistakes");
  });

  it("3.1: `nullable` beside `type` is read as 3.0 reads it, with a warning", async () => {
    const { diagnostics, document } = await generate(
      "nullable-31",
      `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /a:
    get:
      operationId: getA${ok("{type: object, properties: {n: {type: string, nullable: true}}}")}
`,
    );
    expect(diagnostics).toEqual(["12:79 warning openapi/nullable-not-3.1"]);
    expect(document.paths["/a"].get.responses["200"].content["application/json"].schema.properties.n).toEqual({ type: ["string", "null"] });
  });

  it("strict makes the warnings errors: nothing is generated", async () => {
    const { files, diagnostics } = await generate("mistakes-strict", mistakes, true);
    expect(files).toBeUndefined();
    expect(diagnostics).toEqual(["18:12 error openapi/ref-siblings-ignored", "19:23 error openapi/nullable-without-type"]);
  });

  it("the CLI prints FILE:LINE:COL: warning: and exits 0; with --strict it prints error: and exits 1", async () => {
    const file = path.join(scratch, "cli-mistakes.yaml");
    writeFileSync(file, mistakes);
    const lenient = await runCli(["validate", file]);
    expect(lenient.code).toBe(0);
    expect(lenient.stderr).toContain(`${file}:18:12: warning: \`maxLength\` beside`);
    const strict = await runCli(["validate", "--strict", file]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain(`${file}:18:12: error: \`maxLength\` beside`);
  });
});

describe("Swagger 2.0 input (item 6)", () => {
  const swagger = (extra = "") => `swagger: "2.0"
info: {title: pets, version: "1"}
consumes: [application/json]
produces: [application/json]
paths:
  /pets/{id}:
    put:
      operationId: putPet
      parameters:
        - {name: id, in: path, required: true, type: string}
        - name: body
          in: body
          required: true
          schema:
            type: object
            properties:
              code: {type: string, pattern: '^\\:x$'}
      responses:
        "200":
          description: ok
          schema: {$ref: "#/definitions/Pet"}
definitions:
  Pet:
    type: object
    required: [id]
    properties:
      id: {type: string}${extra}
`;

  it("is converted to 3.x and generated; its code compiles; warnings point into the 2.0 file", async () => {
    const { files, diagnostics, document } = await generate("swagger", swagger());
    expect(diagnostics).toEqual(["17:45 warning openapi/pattern-without-u"]);
    expect(document.openapi).toMatch(/^3\.1\./);
    // In the order of every OpenAPI document, as the 2.0 one had `swagger` and `info` first.
    expect(Object.keys(document).slice(0, 2)).toEqual(["openapi", "info"]);
    expect(Object.keys(document.components.schemas)).toEqual(["Pet"]);
    expect(document.paths["/pets/{id}"].put.requestBody.content["application/json"].schema.properties.code.pattern).toBe("^:x$");
    compileTrees([files!], scratch, "swagger");
  });

  it("errors point at the definition in the 2.0 file, not at the converted components", async () => {
    const { files, diagnostics } = await generate("swagger-bad", swagger(`\n      n: {type: integer, minimum: "x"}`));
    expect(files).toBeUndefined();
    expect(diagnostics).toEqual(["28:35 error openapi/invalid"]);
  });

  it("a version other than 2.0 is refused at `swagger`", async () => {
    const { diagnostics } = await generate("swagger-12", `swagger: "1.2"\ninfo: {title: t, version: "1"}\npaths: {}\n`);
    expect(diagnostics).toEqual(["1:10 error openapi/version"]);
  });
});

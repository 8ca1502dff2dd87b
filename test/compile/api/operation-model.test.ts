// The one operation model (deliverable 1): handler types of every kind of operation are
// named and importable, carry the document's descriptions, leave `readOnly` fields out of what a
// client sends and `writeOnly` fields out of what it is answered (also through `$ref`s), and a
// document's problems are collected, all of them, never the first one thrown. The type checks are
// real: a file using the generated types is compiled with tsc, `@ts-expect-error` marking what
// must not type-check (tsc fails on an expect-error that finds no error).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { OpenAPIV3_1 } from "openapi-types";
import { afterAll, describe, expect, it } from "vitest";
import { nodeHost } from "../../../src/host.js";
import { UnsupportedConstructs, buildApiModel } from "../../../src/compile/api/build.js";
import type { GeneratedFile } from "../../../src/emit/render.js";
import { generateFiles } from "../../../src/pipeline.js";
import { ROOT } from "../../support/fixtures.js";
import { compileTrees } from "../../support/generated-code.js";

const pets = {
  openapi: "3.1.0",
  info: { title: "Pets", version: "1" },
  paths: {
    "/pets": {
      post: {
        operationId: "createPet",
        tags: ["pets"],
        requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } } },
        responses: {
          "201": { description: "Created", content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } } },
          "409": { description: "A pet of this name exists" },
        },
      },
      get: {
        operationId: "listPets",
        tags: ["pets"],
        parameters: [{ name: "species", in: "query", description: "Only pets of this species", schema: { type: "string" } }],
        responses: {
          "200": { description: "The pets", content: { "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Owner" } } } } },
        },
      },
    },
  },
  components: {
    schemas: {
      Pet: {
        type: "object",
        description: "A pet.",
        required: ["id", "name", "password"],
        properties: {
          id: { type: "integer", readOnly: true, description: "Given by the server." },
          name: { type: "string", description: "What the pet answers to." },
          password: { type: "string", writeOnly: true },
        },
      },
      // Reaches Pet's readOnly and writeOnly fields through a $ref only.
      Owner: { type: "object", properties: { pet: { $ref: "#/components/schemas/Pet" } } },
    },
  },
};

const CHECK = `
import type { CreatePetInput, CreatePetResult, ListPetsInput, ListPetsResult } from "./index.gen.js";

const scopes = [] as never;
const signal = new AbortController().signal;
export const good: CreatePetInput = { body: { name: "Rex", password: "secret" }, principal: undefined, scopes, signal };
// @ts-expect-error a readOnly field is no part of a request body
export const withId: CreatePetInput = { body: { id: 1, name: "Rex", password: "secret" }, principal: undefined, scopes, signal };
export const answered: CreatePetResult = { status: 201, body: { id: 1, name: "Rex" } };
// @ts-expect-error a writeOnly field is no part of a response body
export const leaked: CreatePetResult = { status: 201, body: { id: 1, name: "Rex", password: "secret" } };
// @ts-expect-error nor through a $ref
export const leakedDeep: ListPetsResult = { status: 200, body: [{ pet: { id: 1, name: "Rex", password: "secret" } }] };
export const refused: CreatePetResult = { status: 409 };
// @ts-expect-error an undeclared status is no result
export const undeclared: CreatePetResult = { status: 418 };
export const query: ListPetsInput = { query: { species: "cat" }, principal: undefined, scopes, signal };
`;

const LENDING_CHECK = `
import type { CreateLoanInput, CreateLoanResult, GetLoanInput, ListLoansInput, LoansHandlers, RenewLoanInput } from "./index.gen.js";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// Every handler method takes its named input and answers its named result.
export const createTakes: Same<Parameters<LoansHandlers["createLoan"]>[0], CreateLoanInput> = true;
export const getTakes: Same<Parameters<LoansHandlers["getLoan"]>[0], GetLoanInput> = true;
export const listTakes: Same<Parameters<LoansHandlers["listLoans"]>[0], ListLoansInput> = true;
export const renewTakes: Same<Parameters<LoansHandlers["renewLoan"]>[0], RenewLoanInput> = true;
// A declared refusal is a typed return value; an undeclared one is not.
export const refusal: CreateLoanResult = { status: 409, error: "Conflict" };
// @ts-expect-error 418 is not declared by createLoan
export const undeclared: CreateLoanResult = { status: 418, error: "Teapot" };
// The member names stores rely on.
export type Members = [CreateLoanInput["body"], GetLoanInput["id"], ListLoansInput["query"], ListLoansInput["page"], RenewLoanInput["to"], RenewLoanInput["current"]];
`;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function generate(file: string, text: string): Promise<GeneratedFile[]> {
  const result = await generateFiles({ ...nodeHost(), cwd: ROOT }, file, text, { outDir: "generated" });
  if (!result.value) throw new Error(result.diagnostics.map((d) => d.message).join("\n"));
  return [...result.value];
}

const source = (name: string) => (files: readonly GeneratedFile[]) => files.find((f) => f.path === name)?.contents ?? "";

describe("the operation model's handler types", () => {
  it("leave readOnly fields out of request bodies and writeOnly fields out of responses, through $refs too, and carry descriptions", async () => {
    const files = await generate("pets.json", JSON.stringify(pets));
    const types = source("types.gen.ts")(files);
    // The variants are declared once each, named after their schema, with the descriptions of their fields.
    expect(types).toMatch(/export type PetRequest = \{\s*\/\*\* What the pet answers to\. \*\/\s*name: string;\s*password: string;?\s*\}/);
    expect(types).toMatch(/export type PetResponse = \{\s*\/\*\* Given by the server\. \*\/\s*id: number;/);
    expect(types).toContain("export type OwnerResponse = { pet?: PetResponse }");
    const group = source("operations/pets.gen.ts")(files);
    expect(group).toMatch(/\/\*\* Only pets of this species \*\/\s*species\?: string/);
    const dir = mkdtempSync(path.join(tmpdir(), "codegen-operation-model-"));
    dirs.push(dir);
    compileTrees([[...files, { path: "check.ts", contents: CHECK }]], dir, "pets");
  }, 120_000);

  it("name every resource handler's input and result, exported through index.gen.ts", async () => {
    const declaration = path.join(ROOT, "fixtures/valid/lending/declaration.yaml");
    const { readFileSync } = await import("node:fs");
    const files = await generate("fixtures/valid/lending/declaration.yaml", readFileSync(declaration, "utf8"));
    const loans = source("resources/loans.gen.ts")(files);
    expect(loans).toContain("createLoan(input: CreateLoanInput): Awaitable<CreateLoanResult>;");
    expect(loans).toMatch(/\/\*\* Only loans in this state\. \*\/\s*status\?: T\.LoanStatus/);
    const dir = mkdtempSync(path.join(tmpdir(), "codegen-operation-model-"));
    dirs.push(dir);
    compileTrees([[...files, { path: "check.ts", contents: LENDING_CHECK }]], dir, "lending");
  }, 120_000);
});

describe("the operation model's problems", () => {
  it("are all collected, a name the gate refuses among them, not the first thrown", () => {
    const document = {
      openapi: "3.1.0",
      info: { title: "Broken", version: "1" },
      paths: {
        "/things": {
          get: { operationId: "list things", "x-codegen-operation": "list", responses: { "200": { description: "ok" } } },
          post: { operationId: "add", security: [{ nowhere: [] }], responses: { "201": { description: "ok" } } },
        },
      },
      components: { schemas: { Thing: { type: "object", "x-codegen-resource": { collection: "things", singular: "thing" } } } },
    } as unknown as OpenAPIV3_1.Document;
    let problems: string[] = [];
    try {
      buildApiModel(document, { inputPath: "api.json" });
    } catch (error) {
      if (!(error instanceof UnsupportedConstructs)) throw error;
      problems = error.problems.map((p) => `${p.pointer}: ${p.reason}`);
    }
    expect(problems).toEqual([
      expect.stringContaining('#/paths/~1things/post/security/0: the security scheme "nowhere" is not defined'),
      expect.stringMatching(/^#\/paths\/~1things\/get: operationId "list things" is not a JavaScript identifier/),
    ]);
  });
});

describe("parameters no style can carry (item 3)", () => {
  it("are refused at their place, saying why and what to do instead, while what a style carries is read", () => {
    const object = { type: "object", properties: { a: { type: "string" } } };
    const document = {
      openapi: "3.1.0",
      info: { title: "Styles", version: "1" },
      paths: {
        "/things": {
          get: {
            operationId: "listThings",
            parameters: [
              { name: "rows", in: "query", schema: { type: "array", items: object } },
              { name: "pairs", in: "query", style: "pipeDelimited", explode: true, schema: object },
              { name: "two", in: "query", content: { "application/json": { schema: object }, "application/xml": { schema: object } } },
              { name: "text", in: "header", content: { "text/plain": { schema: { type: "string" } } } },
              // Read: a deepObject field that is an array of objects, and JSON content.
              { name: "deep", in: "query", style: "deepObject", schema: { type: "object", properties: { rows: { type: "array", items: object } } } },
              { name: "json", in: "query", content: { "application/json": { schema: { type: "array", items: object } } } },
            ],
            responses: { "200": { description: "ok" } },
          },
        },
      },
    } as unknown as OpenAPIV3_1.Document;
    let problems: string[] = [];
    try {
      buildApiModel(document, { inputPath: "api.json" });
    } catch (error) {
      if (!(error instanceof UnsupportedConstructs)) throw error;
      problems = error.problems.map((p) => `${p.pointer}: ${p.reason}`);
    }
    const at = "#/paths/~1things/get/parameters";
    expect(problems).toEqual([
      `${at}/0: the query parameter "rows" is an array of arrays or objects, which no form parameter can carry unambiguously; describe it with \`content: application/json\`, make it a field of a deepObject parameter, or use a JSON body`,
      `${at}/1: the pipeDelimited style does not define exploded objects (OpenAPI 3.1 section 4.8.12.4); set \`explode: false\` or use deepObject for "pairs"`,
      `${at}/2/content: the query parameter "two" must have exactly one media type in \`content\`, and codegen reads JSON ones (application/json)`,
      `${at}/3/content: the header parameter "text" must have exactly one media type in \`content\`, and codegen reads JSON ones (application/json)`,
    ]);
  });
});

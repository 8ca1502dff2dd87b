// A `$ref` to a part of a schema (`#/components/schemas/Report/definitions/
// reportComponent`) whose part refers to itself could not be inlined and was refused. That part
// becomes a schema of its own; the document generates, its code type-checks under the strict
// options, and the generated server validates a recursive body over real HTTP on 127.0.0.1.

import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileTrees } from "../support/generated-code.js";
import { call, closeLocal, compileText, expectError, generateText, listenLocal, START_TIMEOUT } from "./support.js";
import type { Json } from "./support.js";

const DOCUMENT = `openapi: 3.1.0
info: { title: Reports, version: "1" }
paths:
  /reports:
    post:
      operationId: createReport
      requestBody:
        required: true
        content:
          application/json: { schema: { $ref: "#/components/schemas/Report" } }
      responses:
        "200": { description: OK, content: { application/json: { schema: { $ref: "#/components/schemas/Report" } } } }
  /components:
    post:
      operationId: createComponent
      requestBody:
        required: true
        content:
          application/json: { schema: { $ref: "#/components/schemas/Report/definitions/reportComponent" } }
      responses:
        "200": { description: OK, content: { application/json: { schema: { type: object } } } }
components:
  schemas:
    Report:
      type: object
      required: [title]
      properties:
        title: { type: string }
        components: { type: array, items: { $ref: "#/components/schemas/Report/definitions/reportComponent" } }
      definitions:
        reportComponent:
          type: object
          required: [name]
          properties:
            name: { type: string }
            components: { type: array, items: { $ref: "#/components/schemas/Report/definitions/reportComponent" } }
`;

describe("a ref to a part of a schema that refers to itself (codat)", () => {
  let server: Server;
  let at = "";
  let dispose = async () => {};
  const scratch = mkdtempSync(path.join(tmpdir(), "codegen-self-ref-"));

  beforeAll(async () => {
    const compiled = await compileText(DOCUMENT);
    dispose = compiled.dispose;
    const echo = (input: Json) => ({ status: 200, body: input.body });
    server = compiled.api.createServer({ handlers: { reports: { createReport: echo }, components: { createComponent: echo } }, verifyToken: () => undefined });
    at = await listenLocal(server);
  }, START_TIMEOUT);
  afterAll(async () => {
    await closeLocal(server);
    await dispose();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("generates without diagnostics: the part is a named, recursive type, and the code type-checks", async () => {
    const result = await generateText(DOCUMENT);
    expect(result.diagnostics).toEqual([]);
    const types = result.value!.find((file) => file.path === "types.gen.ts")!.contents;
    expect(types).toMatch(/export (type|interface) ReportDefinitionsReportComponent\b/);
    expect(types).toMatch(/components\?: ReportDefinitionsReportComponent\[\]/);
    compileTrees([result.value!], scratch);
  }, 60_000);

  it("takes a body nested three deep, and answers 400 at the path of a bad field at any depth", async () => {
    const deep = { name: "a", components: [{ name: "b", components: [{ name: "c" }] }] };
    expect((await call(at, "POST", "/reports", { json: { title: "t", components: [deep] } })).status).toBe(200);
    expect((await call(at, "POST", "/components", { json: deep })).status).toBe(200);
    const bad = { name: "a", components: [{ name: "b", components: [{ name: 3 }] }] };
    expectError(await call(at, "POST", "/components", { json: bad }), 400, ["components[0].components[0].name"]);
    expectError(await call(at, "POST", "/reports", { json: { title: "t", components: [{ components: [] }] } }), 400, ["components[0].name"]);
  });
});

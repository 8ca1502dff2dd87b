import { describe, expect, it } from "vitest";
import { expandDeclaration } from "../../../src/compile/expand/expand.js";
import { compileSchemas, verifyDocument } from "../../../src/compile/verify/verify.js";
import { baseDeclaration, validDeclaration } from "../../support/declare.js";

const document = () => expandDeclaration(validDeclaration(baseDeclaration())) as any;

describe("verifyDocument", () => {
  it("passes the expansion of a valid declaration", async () => {
    expect(await verifyDocument(document())).toEqual([]);
  });

  it("passes extensions of any name on a resource and a field (x-*/source), still finding typos beside them", async () => {
    const declaration = baseDeclaration() as { resources: { products: Record<string, unknown> & { fields: Record<string, unknown> } } };
    declaration.resources.products["x-*/source"] = "catalogue";
    declaration.resources.products.fields.name = { type: "string", "x-a b/c": 1 };
    const doc = expandDeclaration(validDeclaration(declaration)) as any;
    expect(await verifyDocument(doc)).toEqual([]);
    doc.components.schemas.Product.properties.name.type = "strnig";
    expect((await verifyDocument(doc)).map((p) => p.code)).toContain("internal/invalid-schema");
  });

  it("does not change the document it checks", async () => {
    const doc = document();
    const before = JSON.stringify(doc);
    await verifyDocument(doc);
    expect(JSON.stringify(doc)).toBe(before);
  });

  it("finds a typo inside a 3.1 schema that swagger-parser lets through", async () => {
    const doc = document();
    doc.components.schemas.Product.properties.name.type = "strnig";
    const problems = await verifyDocument(doc);
    expect(problems.map((p) => p.code)).toContain("internal/invalid-schema");
    expect(problems[0]!.message).toContain("bug in codegen");
  });

  it("finds a schema outside components, and an unknown keyword", () => {
    const doc = document();
    doc.paths["/products"].get.parameters = [{ name: "q", in: "query", schema: { type: "string", minLenght: 1 } }];
    expect(
      compileSchemas(doc)
        .map((p) => p.message)
        .join("\n"),
    ).toContain("minLenght");
  });

  it("reports an invalid OpenAPI structure from swagger-parser", async () => {
    const doc = document();
    doc.paths["/products"].get.operationId = 42;
    const problems = await verifyDocument(doc);
    expect(problems.map((p) => p.code)).toContain("internal/invalid-openapi");
  });
});

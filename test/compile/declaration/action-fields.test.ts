// Which body fields of an action the stores write onto the object (declaration.md, "Actions";
// docs/declaration.md "Actions that store their body"): a field named like a resource field is
// stored when every value it accepts fits that field, and refused with a located diagnostic
// otherwise; a field of another name reaches only the handler.
import { describe, expect, it } from "vitest";
import { checkDeclaration, openapiFromText } from "../../../src/compile/compile.js";

/** The declaration of a resource with `field` and an action whose body has `body` under the same name `x`. */
function declaring(field: string, body: string): string {
  return `codegen: 1
info: { title: T, version: "1" }
resources:
  items:
    fields:
      x: ${field}
    actions:
      act:
        body:
          x: ${body}
          other: { type: string }
`;
}

/** What the action stores, or the diagnostics' messages. */
function outcome(field: string, body: string): readonly string[] {
  const result = checkDeclaration("api.yaml", declaring(field, body));
  if (result.value === undefined) return result.diagnostics.map((d) => `${d.code}@${d.location?.line}:${d.location?.column}`);
  return result.value.resources[0]!.actions[0]!.stores ?? [];
}

describe("an action's body fields named like resource fields", () => {
  it.each([
    ["the same declaration", "{ type: string, maxLength: 10 }", "{ type: string, maxLength: 10 }"],
    ["an integer into a number", "number", "integer"],
    ["tighter bounds", "{ type: integer, minimum: 0, maximum: 10 }", "{ type: integer, minimum: 1, maximum: 5 }"],
    ["an enum within the field's", "{ type: string, enum: [a, b, c] }", "{ type: string, enum: [a, c] }"],
    ["null where the field holds it", "{ type: string, nullable: true }", "{ type: string, nullable: true }"],
    ["arrays of compatible items", "{ type: array, items: { type: string, maxLength: 3 } }", "{ type: array, items: { type: string, maxLength: 2 } }"],
    ["the id of a `ref` field (the store checks it at the write)", "{ type: integer, ref: items }", "integer"],
    ["the same pattern", '{ type: string, pattern: "^a" }', '{ type: string, pattern: "^a" }'],
  ])("are stored when compatible: %s", (_case, field, body) => {
    expect(outcome(field, body)).toEqual(["x"]);
  });

  it.each([
    ["another type", "string", "integer"],
    ["another format", "{ type: string, format: date-time }", "{ type: string, format: date }"],
    ["a looser bound", "{ type: string, maxLength: 10 }", "{ type: string, maxLength: 11 }"],
    ["a missing bound", "{ type: integer, minimum: 0 }", "integer"],
    ["an enum value outside the field's", "{ type: string, enum: [a, b] }", "{ type: string, enum: [a, z] }"],
    ["no enum where the field has one", "{ type: string, enum: [a, b] }", "string"],
    ["null the field cannot hold", "string", "{ type: string, nullable: true }"],
    ["another pattern", '{ type: string, pattern: "^a" }', "string"],
    ["incompatible items", "{ type: array, items: string }", "{ type: array, items: integer }"],
  ])("are refused at the body field when not: %s", (_case, field, body) => {
    expect(outcome(field, body)).toEqual(["decl/action-field-incompatible@10:11"]);
  });
});

describe("the document of an action that stores fields", () => {
  it("names them in its description and x-codegen-action, and declares the 409 of a stored `ref` whose object is gone", async () => {
    const text = declaring("{ type: integer, ref: items }", "integer");
    const { value } = await openapiFromText("api.yaml", text, undefined, { selfCheck: true });
    const operation = value!.paths!["/items/{id}/act"]!.post! as unknown as { [key: string]: unknown };
    expect(operation.description).toContain("Stores `x` of the body on the item.");
    expect(operation["x-codegen-action"]).toEqual({ name: "act", stores: ["x"] });
    expect(Object.keys(operation.responses as object)).toContain("409");
  });
});

// Moving between OpenAPI 3.0 and 3.1 converts schemas, and only schemas: an example or an extension
// holds the user's data, whatever keys it has (a `schema` or `schemas` among them).
import { describe, expect, it } from "vitest";
import { fromOpenApi30, toOpenApi30 } from "../../../src/compile/openapi/versions.js";

/** A value shaped like schemas, as an example or an extension might hold it. */
const lookalike = {
  schema: { type: "string", nullable: true, example: "a", exclusiveMinimum: true, minimum: 1 },
  schemas: { Pet: { type: ["string", "null"], examples: ["b"] } },
};

/** A document with `lookalike` in an example, a media type's examples, and an extension. */
function documentOf(openapi: string, schema: object) {
  return {
    openapi,
    info: { title: "t", version: "1", "x-data": lookalike },
    paths: {
      "/pets": {
        get: {
          responses: {
            "200": {
              description: "ok",
              content: {
                "application/json": {
                  schema,
                  example: lookalike,
                  examples: { one: { value: lookalike } },
                },
              },
            },
          },
        },
      },
    },
    components: { schemas: { Pet: { ...schema, example: lookalike } } },
  };
}

describe("3.0 <-> 3.1 conversions", () => {
  it("reads a 3.0 document's schemas as 3.1 and leaves its examples and extensions as written", () => {
    const converted = fromOpenApi30(documentOf("3.0.3", { type: "string", nullable: true })) as ReturnType<typeof documentOf>;
    const media = converted.paths["/pets"].get.responses["200"].content["application/json"];
    expect(media.schema).toEqual({ type: ["string", "null"] });
    expect(media.example).toEqual(lookalike);
    expect(media.examples.one.value).toEqual(lookalike);
    expect(converted.info["x-data"]).toEqual(lookalike);
    // A schema's own `example` becomes `examples`, its value as written.
    expect(converted.components.schemas.Pet).toEqual({ type: ["string", "null"], examples: [lookalike] });
  });

  it("writes a 3.1 document's schemas as 3.0 and leaves its examples and extensions as written", () => {
    const converted = toOpenApi30(documentOf("3.1.1", { type: ["string", "null"] })) as ReturnType<typeof documentOf>;
    const media = converted.paths["/pets"].get.responses["200"].content["application/json"];
    expect(media.schema).toEqual({ type: "string", nullable: true });
    expect(media.example).toEqual(lookalike);
    expect(media.examples.one.value).toEqual(lookalike);
    expect(converted.info["x-data"]).toEqual(lookalike);
  });
});

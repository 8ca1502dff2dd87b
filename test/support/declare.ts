import { stringify } from "yaml";
import type { Declaration } from "../../src/compile/declaration/model.js";
import { checkDeclaration } from "../../src/pipeline.js";

/** A small valid declaration as plain data; tests change one part of it. */
export function baseDeclaration(): Record<string, unknown> {
  return {
    codegen: 1,
    info: { title: "Shop", version: "1.0.0" },
    auth: [{ guard: "password", tokenUrl: "/token", scopes: { "products:write": "Change products" } }],
    resources: {
      products: {
        fields: { name: { type: "string", required: true }, price: { type: "number", minimum: 0 } },
        access: { read: "public", write: ["products:write"] },
      },
    },
  };
}

/** Validate a declaration given as data (written out as YAML first, so places are real). */
export function declare(value: unknown): ReturnType<typeof checkDeclaration> {
  return checkDeclaration("api.yaml", stringify(value));
}

/** The normalized declaration, failing loudly when the input is not valid. */
export function validDeclaration(value: unknown): Declaration {
  const result = declare(value);
  if (!result.value) throw new Error(result.diagnostics.map((d) => d.message).join("\n"));
  return result.value;
}

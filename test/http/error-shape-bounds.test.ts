// A refusal's body keeps its declared schema's string bounds (docs/openapi.md, "How a server from
// a document answers errors"): a text the server makes (a title as a code, a sentence) is never
// held to a `pattern` it may not match, so such a response is answered as the next declared one
// (its range, `default`) instead, with a warning at generation; a `maxLength` cuts the text; a
// number the problem has no value for is the least its bounds admit.
// Checked over real HTTP, each answer by ajv against the document.

import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "../support/fixtures.js";
import { START_TIMEOUT, closeLocal, listenLocal } from "./support.js";
import { compileDocument, expectConforms } from "./document-server.js";
import type { DocumentServer, Json } from "./document-server.js";

const DOCUMENT = "fixtures/openapi/error-shape-bounds/openapi.yaml";
const document = parse(readFileSync(path.join(ROOT, DOCUMENT), "utf8")) as Json;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(document, "document");

let generated: DocumentServer;
let server: Server;
let base = "";

beforeAll(async () => {
  generated = await compileDocument(DOCUMENT);
  const ok = () => ({ status: 200 });
  server = generated.api.createServer({ handlers: { patterned: { patterned: ok }, short: { short: ok } } });
  base = await listenLocal(server);
}, START_TIMEOUT);

afterAll(async () => {
  await closeLocal(server);
  await generated?.dispose();
});

async function get(target: string) {
  const response = await fetch(base + target, { signal: AbortSignal.timeout(2_000) });
  return { status: response.status, contentType: response.headers.get("content-type"), text: await response.text() };
}

describe("error bodies within their schemas' string bounds", () => {
  it("a 400 whose code has a pattern is answered with the body of the declared 4XX", async () => {
    const reply = await get("/patterned?n=x");
    expect([reply.status, reply.contentType]).toEqual([400, "application/json"]);
    const body = JSON.parse(reply.text) as unknown;
    expect(body).toEqual({ message: "Invalid request: n must be an integer" });
    expect(ajv.validate({ $ref: "document#/paths/~1patterned/get/responses/4XX/content/application~1json/schema" }, body), ajv.errorsText()).toBe(true);
  });

  it("texts are cut to their maxLength, a constant is kept only where it fits the pattern, a number within its bounds", async () => {
    const reply = await get("/short?number=x");
    expect(reply.status).toBe(400);
    expect(expectConforms(ajv, document, "get", "/short", reply)).toEqual({ count: 5, code: "invalid", message: "Invalid requ", type: "about:blank" });
  });
});

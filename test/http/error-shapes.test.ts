// Servers generated from documents written by others answer their own refusals the way each
// document describes its errors (docs/openapi.md, "How a server from a document answers errors"):
// fixtures/openapi/error-shapes, one operation per common shape, driven over real HTTP on
// 127.0.0.1 with valid and invalid requests; every answer is checked against the document by ajv
// (an independent validator) over the declared response's schema. Also: operations left out of
// the handlers answer 501, a document that needs a token check refuses to start without
// verifyToken, and a client that accepts none of an operation's media types gets 406.

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

const DOCUMENT = "fixtures/openapi/error-shapes/openapi.yaml";
const document = parse(readFileSync(path.join(ROOT, DOCUMENT), "utf8")) as Json;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(document, "document");

type Problem = { status: number; title: string; fields: { [field: string]: string } };
/** What formatError was told. */
const formatted: { problem: Problem; context: { operationId: string | undefined; status: number } }[] = [];

const ok = () => ({ status: 200, body: { ok: true } });
// Every operation but `later`, which is left out (501).
const HANDLERS = {
  shapes: Object.fromEntries(
    ["problem", "codeMessage", "message", "nested", "fastapi", "errorsList", "requiredFields", "opaque", "text", "empty", "secure"].map((op) => [op, ok]),
  ),
};

let generated: DocumentServer;
let server: Server;
let base = "";

beforeAll(async () => {
  generated = await compileDocument(DOCUMENT);
  server = generated.api.createServer({
    handlers: { ...HANDLERS, shapes: { ...HANDLERS.shapes, report: () => ({ status: 200, contentType: "text/csv", body: "a,b\n" }) } },
    verifyToken: (token: string) => (token === "good" ? { subject: "ann", scopes: [] } : undefined),
    bodyLimit: 512,
    formatError: (problem: Problem, context: { operationId: string | undefined; status: number }) => {
      formatted.push({ problem, context });
      return context.operationId === "opaque" ? { body: { ref: `E-${context.status}` } } : undefined;
    },
  });
  base = await listenLocal(server);
}, START_TIMEOUT);

afterAll(async () => {
  await closeLocal(server);
  await generated?.dispose();
});

type Reply = { status: number; contentType: string | null; text: string };

async function send(method: string, target: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  const response = await fetch(base + target, {
    method,
    headers: init.headers ?? {},
    ...(init.body === undefined ? {} : { body: init.body }),
    signal: AbortSignal.timeout(2_000),
  });
  return { status: response.status, contentType: response.headers.get("content-type"), text: await response.text() };
}

const json = (value: unknown) => ({ headers: { "Content-Type": "application/json" }, body: JSON.stringify(value) });
const INVALID = json({ name: "", born: "2024-02-30", extra: 1 });

describe("each error shape: the declared status, a body the declared schema accepts", () => {
  const cases: [string, number, (body: unknown) => void][] = [
    [
      "/problem",
      400,
      (body) => expect(body).toMatchObject({ type: "about:blank", title: "Invalid request", status: 400, detail: expect.stringContaining("name") }),
    ],
    ["/code-message", 400, (body) => expect(body).toMatchObject({ code: "invalid_request", message: expect.stringContaining("born") })],
    ["/message", 422, (body) => expect(Object.keys(body as Json)).toEqual(["message"])],
    ["/nested", 400, (body) => expect(body).toMatchObject({ error: { code: "invalid_request", message: expect.stringContaining("name") } })],
    ["/fastapi", 422, (body) => expect((body as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc)).toContainEqual(["body", "name"])],
    [
      "/errors-list",
      400,
      (body) => expect((body as { errors: { field: string }[] }).errors.map((e) => e.field)).toEqual(expect.arrayContaining(["name", "born"])),
    ],
    ["/required-fields", 400, (body) => expect((body as Json)["correlationId"]).toMatch(/^[0-9a-f-]{36}$/)],
    ["/opaque", 400, (body) => expect(body).toEqual({ ref: "E-400" })],
  ];
  it.each(cases)("%s answers an invalid body with %i and its declared shape", async (target, status, check) => {
    const reply = await send("POST", target, INVALID);
    expect(reply.status).toBe(status);
    const body = expectConforms(ajv, document, "post", target, reply);
    check(body);
    // A valid request reaches the handler.
    const valid = await send("POST", target, json({ name: "Rex", born: "2024-02-29" }));
    expect(valid.status).toBe(200);
    expectConforms(ajv, document, "post", target, valid);
  });

  it("a text error is the message as text/plain; an error declared without content has none", async () => {
    const text = await send("POST", "/text", INVALID);
    expect([text.status, text.contentType]).toEqual([400, "text/plain"]);
    expect(text.text).toContain("Invalid request");
    const empty = await send("POST", "/empty", INVALID);
    expect([empty.status, empty.contentType, empty.text]).toEqual([400, null, ""]);
  });

  it("every refusal before validation is shaped too: 415, 413, a body that is not JSON, 405, 404", async () => {
    const replies = [
      ["post", "/errors-list", await send("POST", "/errors-list", { headers: { "Content-Type": "text/plain" }, body: "x" })],
      ["post", "/errors-list", await send("POST", "/errors-list", json({ name: "x".repeat(600) }))],
      ["post", "/errors-list", await send("POST", "/errors-list", { headers: { "Content-Type": "application/json" }, body: "{" })],
      ["post", "/nested", await send("DELETE", "/nested")],
      // (A path no route answers is answered as the first operation declaring a 404 declares it.)
      ["get", "/report", await send("GET", "/no/such/path")],
    ] as const;
    expect(replies.map(([, , reply]) => reply.status)).toEqual([415, 413, 400, 405, 404]);
    for (const [method, target, reply] of replies) expectConforms(ajv, document, method, target, reply);
    expect(JSON.parse(replies[3][2].text)).toMatchObject({ error: { code: "method_not_allowed" } });
    expect(JSON.parse(replies[0][2].text)).toMatchObject({ errors: [{ field: "content-type" }] });
  });

  it("a refusal whose status the operation does not declare (no code, range or default) keeps the conventions' status and body", async () => {
    const reply = await send("POST", "/code-message", { headers: { "Content-Type": "text/plain" }, body: "x" });
    expect([reply.status, reply.contentType]).toEqual([415, "application/json"]);
    expect(JSON.parse(reply.text)).toEqual({ error: "Unsupported media type", detail: { "content-type": "must be application/json" } });
  });

  it("formatError is told the problem, the operation and the status answered, and shapes what it returns", async () => {
    formatted.length = 0;
    await send("POST", "/opaque", json({}));
    expect(formatted).toEqual([
      { problem: { status: 400, title: "Invalid request", fields: { name: "is required" } }, context: { operationId: "opaque", status: 400 } },
    ]);
  });
});

describe("guards, partial handlers and Accept", () => {
  it("a refused token answers 401 in the declared shape, with its WWW-Authenticate", async () => {
    const response = await fetch(`${base}/secure`, { headers: { Authorization: "Bearer bad" }, signal: AbortSignal.timeout(2_000) });
    const reply = { status: response.status, contentType: response.headers.get("content-type"), text: await response.text() };
    expect(reply.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(JSON.parse(reply.text)).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    expectConforms(ajv, document, "get", "/secure", reply);
    expect((await send("GET", "/secure", { headers: { Authorization: "Bearer good" } })).status).toBe(200);
  });

  it("an operation the handlers leave out answers 501 in its declared 5XX shape", async () => {
    const reply = await send("GET", "/later");
    expect(reply.status).toBe(501);
    expect(reply.contentType).toBe("application/problem+json");
    expect(JSON.parse(reply.text)).toMatchObject({ type: "about:blank", title: "Not implemented", status: 501 });
    expectConforms(ajv, document, "get", "/later", reply);
  });

  it("406 when Accept admits none of the operation's media types (q=0, wildcards; no Accept admits all)", async () => {
    const answers: [string | undefined, number][] = [
      [undefined, 200],
      ["text/csv", 200],
      ["text/*", 200],
      ["*/*;q=0.1", 200],
      ["application/json", 406],
      ["text/csv;q=0, application/json", 406],
      ["text/*;q=0", 406],
      ["text/*;q=0, text/csv;q=0.5", 200],
    ];
    for (const [accept, status] of answers) {
      const reply = await send("GET", "/report", accept === undefined ? {} : { headers: { Accept: accept } });
      expect([accept, reply.status]).toEqual([accept, status]);
      expectConforms(ajv, document, "get", "/report", reply);
    }
  });

  it("a document whose operations need a token check refuses to start without verifyToken, naming the scheme", () => {
    expect(() => generated.api.createServer({ handlers: HANDLERS })).toThrow(/security scheme "bearer".*verifyToken/);
  });
});

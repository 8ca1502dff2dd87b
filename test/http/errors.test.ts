// The error rows of http-behaviour "Errors" on the blog fixture, and the order of the checks:
// route (404, 405), guards (401, 403), Accept (406), Content-Type (415), size (413),
// validation (400), lookup (404), transition (409); the first that fails answers.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/serve/serve.js";
import { startFixtureServer } from "../support/generated.js";
import { START_TIMEOUT, call, expectAuthError, expectError, form, issueToken, obj, raw } from "./support.js";

const admin = { name: "ann", password: "secret", scopes: ["articles:read", "articles:write", "authors:write"] };
const MiB = 1024 * 1024;
let server: RunningServer;
let base = "";
let writer = "";
let reader = "";
let href = "";

beforeAll(async () => {
  server = await startFixtureServer("blog", [admin]);
  base = server.url;
  writer = await issueToken(base, admin, ["articles:write"], "/token");
  reader = await issueToken(base, admin, ["articles:read"], "/token");
  href = `/articles/${String(obj(await call(base, "POST", "/articles", { json: { title: "Target" }, token: writer })).id)}`;
}, START_TIMEOUT);
afterAll(() => server?.close());

describe("404 and 405", () => {
  it.each(["/nope", "/articles/1/comments", "/articles/", "//articles", "/Articles", "/token/x", "/_codegen"])(
    "unknown path %s: 404 {error: Not found, detail: {}}",
    async (target) => {
      for (const method of ["GET", "POST", "DELETE"]) {
        const reply = await call(base, method, target);
        expect(reply.status, `${method} ${target}`).toBe(404);
        expect(reply.body).toEqual({ error: "Not found", detail: {} });
      }
    },
  );

  it("unknown id: 404 naming id", async () => {
    const detail = expectError(await call(base, "GET", "/articles/424242"), 404, ["id"]);
    expect(detail.id).toContain("424242");
    expectError(await call(base, "GET", "/authors/424242"), 404, ["id"]);
  });

  it.each([
    // Allow names HEAD where GET is answered, and OPTIONS (http-behaviour "Beyond the API's own routes").
    ["DELETE", "/articles", "GET, HEAD, OPTIONS, POST"],
    ["PUT", "/articles", "GET, HEAD, OPTIONS, POST"],
    ["POST", "/articles/1", "DELETE, GET, HEAD, OPTIONS, PATCH, PUT"],
    ["POST", "/", "GET, HEAD, OPTIONS"],
    ["DELETE", "/", "GET, HEAD, OPTIONS"],
    ["GET", "/token", "OPTIONS, POST"],
    ["TRACE", "/authors", "GET, HEAD, OPTIONS, POST"],
  ])("%s %s: 405 with Allow %s", async (method, target, allow) => {
    const reply = method === "TRACE" ? await raw(base, [`${method} ${target} HTTP/1.1`]) : await call(base, method, target);
    expectError(reply, 405);
    expect(String(reply.headers.get("allow")).split(", ").sort().join(", ")).toBe(allow);
  });
});

describe("406, 415, 413 and malformed bodies", () => {
  it.each(["text/html", "application/xml", "application/json;q=0", "text/*", "application/json;q=0, */*", "image/png, text/html;q=0.9"])(
    "Accept: %s admits no JSON: 406",
    async (accept) => {
      expectError(await call(base, "GET", "/authors", { headers: { Accept: accept } }), 406);
      expectError(await call(base, "GET", href, { headers: { Accept: accept } }), 406);
    },
  );

  it.each([
    "application/json",
    "*/*",
    "application/*",
    "text/html, application/json;q=0.1",
    "text/html;q=1, */*;q=0.5",
    "APPLICATION/JSON",
    "application/json;charset=utf-8",
  ])("Accept: %s admits JSON: 200", async (accept) => {
    expect((await call(base, "GET", "/authors", { headers: { Accept: accept } })).status).toBe(200);
  });

  it.each(["text/plain", "application/jsonx", "application/x-www-form-urlencoded", "text/json", "multipart/form-data; boundary=x"])(
    "Content-Type %s: 415",
    async (contentType) => {
      expectError(
        await call(base, "POST", "/articles", { body: JSON.stringify({ title: "x" }), headers: { "Content-Type": contentType }, token: writer }),
        415,
      );
    },
  );

  it("no Content-Type on a body: 415", async () => {
    const body = JSON.stringify({ title: "x" });
    expectError(await raw(base, ["POST /articles HTTP/1.1", `Authorization: Bearer ${writer}`, `Content-Length: ${body.length}`], body), 415);
  });

  it("Content-Type application/json with parameters is JSON", async () => {
    const reply = await call(base, "POST", "/articles", {
      body: JSON.stringify({ title: "p" }),
      headers: { "Content-Type": "Application/JSON; charset=UTF-8" },
      token: writer,
    });
    expect(reply.status, reply.text).toBe(201);
  });

  it.each([
    ["truncated", '{"title": "x"'],
    ["not JSON", "title=x"],
    ["a trailing comma", '{"title": "x",}'],
    ["empty", ""],
    ["two documents", '{"title":"x"} {}'],
  ])("malformed JSON (%s): 400 naming body", async (_, body) => {
    expectError(await call(base, "POST", "/articles", { body, headers: { "Content-Type": "application/json" }, token: writer }), 400, ["body"]);
  });

  it("a body that is not UTF-8: 400 naming body", async () => {
    const body = Buffer.concat([Buffer.from('{"title":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    expectError(await call(base, "POST", "/articles", { body, headers: { "Content-Type": "application/json" }, token: writer }), 400, ["body"]);
  });

  it("Content-Length over 1 MiB: 413 at once, before the body is sent, and the connection closes", async () => {
    const reply = await raw(
      base,
      ["POST /articles HTTP/1.1", `Authorization: Bearer ${writer}`, "Content-Type: application/json", `Content-Length: ${MiB + 1}`],
      "",
      { keepAlive: true, waitMs: 1_500 },
    );
    expectError(reply, 413, ["body"]);
    expect(reply.closed).toBe(true);
    expect(reply.headers.get("connection")).toBe("close");
  });

  it("a chunked body whose bytes exceed 1 MiB: 413 and the connection closes", async () => {
    const size = MiB + 16;
    const chunk = `${size.toString(16)}\r\n${"x".repeat(size)}`;
    const reply = await raw(
      base,
      ["POST /articles HTTP/1.1", `Authorization: Bearer ${writer}`, "Content-Type: application/json", "Transfer-Encoding: chunked"],
      chunk,
      { keepAlive: true, waitMs: 1_500 },
    );
    expectError(reply, 413, ["body"]);
    expect(reply.closed).toBe(true);
  });

  it("a body of exactly 1 MiB is read and validated", async () => {
    const padding = MiB - JSON.stringify({ title: "" }).length;
    const body = JSON.stringify({ title: "t".repeat(padding) });
    expect(body.length).toBe(MiB);
    const reply = await call(base, "POST", "/articles", { body, headers: { "Content-Type": "application/json" }, token: writer });
    expectError(reply, 400, ["title"]);
  });

  it("the token endpoint: Content-Length over 1 MiB with its own type: 413", async () => {
    const reply = await raw(base, ["POST /token HTTP/1.1", "Content-Type: application/x-www-form-urlencoded", `Content-Length: ${2 * MiB}`], "", {
      keepAlive: true,
    });
    expectError(reply, 413);
    expect(reply.closed).toBe(true);
  });

  it("an answer given before the body is read (401, 406) skips that body: the next request on the connection is read", async () => {
    const body = JSON.stringify({ title: "x" });
    const next = "GET /authors HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    for (const extra of [[], [`Authorization: Bearer ${writer}`, "Accept: text/html"]]) {
      const first = ["POST /articles HTTP/1.1", ...extra, "Content-Type: application/json", `Content-Length: ${body.length}`];
      const reply = await raw(base, first, body + next, { keepAlive: true });
      expect(reply.status).toBe(extra.length === 0 ? 401 : 406);
      expect(reply.rest).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(reply.rest).toMatch(/\r\n\r\n\[.*\]$/);
    }
  });

  it("an error answer on a keep-alive connection leaves it open; a 413 closes it", async () => {
    const kept = await raw(base, ["POST /articles HTTP/1.1", `Authorization: Bearer ${writer}`, "Content-Type: application/json", "Content-Length: 1"], "{", {
      keepAlive: true,
      waitMs: 300,
    });
    expectError(kept, 400, ["body"]);
    expect(kept.closed).toBe(false);
  });
});

describe("malformed HTTP (clientError): JSON bodies, not Node's bare answers", () => {
  it("a request line the parser refuses: 400 with an error body", async () => {
    const reply = await raw(base, ["THIS IS NOT HTTP"]);
    expectError(reply, 400);
    expect(reply.closed).toBe(true);
  });

  it("a header line without a colon: 400", async () => {
    expectError(await raw(base, ["GET /authors HTTP/1.1", "No colon here"]), 400);
  });

  it("headers too large: 431 with an error body", async () => {
    const reply = await raw(base, ["GET /authors HTTP/1.1", `X-Big: ${"a".repeat(20_000)}`]);
    expectError(reply, 431);
    expect(reply.closed).toBe(true);
  });

  it("both Content-Length and Transfer-Encoding (request smuggling): 400", async () => {
    const reply = await raw(
      base,
      ["POST /articles HTTP/1.1", `Authorization: Bearer ${writer}`, "Content-Type: application/json", "Content-Length: 4", "Transfer-Encoding: chunked"],
      "0\r\n\r\n",
    );
    expectError(reply, 400);
    expect(reply.closed).toBe(true);
  });

  it("a path with bad percent-encoding: 400", async () => {
    expectError(await raw(base, ["GET /articles/%E0%A4%A HTTP/1.1"]), 400);
  });
});

describe("the order of the checks: the earlier answers", () => {
  const json = (body: unknown, extra: Record<string, string> = {}) => ({ json: body, headers: extra });

  it("route (404) before guards (401)", async () => {
    const reply = await call(base, "POST", "/nope", json({ title: "x" }));
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ error: "Not found", detail: {} });
    expect(reply.headers.get("www-authenticate")).toBeNull();
  });

  it("route (405) before guards (401)", async () => {
    const reply = await call(base, "PUT", "/articles", json({ title: "x" }));
    expectError(reply, 405);
    expect(reply.headers.get("www-authenticate")).toBeNull();
  });

  it("guards (401, 403) before Accept (406)", async () => {
    expectAuthError(await call(base, "POST", "/articles", json({ title: "x" }, { Accept: "text/html" })), 401, "Bearer", "Not authenticated");
    expectAuthError(await call(base, "POST", "/articles", { ...json({ title: "x" }, { Accept: "text/html" }), token: "x" }), 401, "Bearer");
    expectAuthError(
      await call(base, "POST", "/articles", { ...json({ title: "x" }, { Accept: "text/html" }), token: reader }),
      403,
      'Bearer error="insufficient_scope", scope="articles:write"',
    );
    expectAuthError(await call(base, "GET", href, { token: "x", headers: { Accept: "text/html" } }), 401, "Bearer");
  });

  it("Accept (406) before Content-Type (415)", async () => {
    expectError(await call(base, "POST", "/articles", { body: "x", headers: { Accept: "text/html", "Content-Type": "text/plain" }, token: writer }), 406);
    expectError(await call(base, "POST", "/token", { body: "x", headers: { Accept: "text/html", "Content-Type": "text/plain" } }), 406);
  });

  it("Content-Type (415) before size (413)", async () => {
    const reply = await raw(
      base,
      ["POST /articles HTTP/1.1", `Authorization: Bearer ${writer}`, "Content-Type: text/plain", `Content-Length: ${2 * MiB}`],
      "",
      { keepAlive: true },
    );
    expectError(reply, 415);
    const token = await raw(base, ["POST /token HTTP/1.1", "Content-Type: application/json", `Content-Length: ${2 * MiB}`], "", { keepAlive: true });
    expectError(token, 415);
  });

  it("size (413) before validation (400)", async () => {
    const big = [`Content-Length: ${2 * MiB}`, "Content-Type: application/json", `Authorization: Bearer ${writer}`];
    expectError(await raw(base, ["POST /articles?unknown=1 HTTP/1.1", ...big], "", { keepAlive: true }), 413);
    expectError(await raw(base, ["PUT /articles/not-an-id HTTP/1.1", ...big], "", { keepAlive: true }), 413);
  });

  it("validation (400) before lookup (404)", async () => {
    expectError(await call(base, "PUT", "/articles/99999", { json: { body: "no title" }, token: writer }), 400, ["title"]);
    expectError(await call(base, "PATCH", "/articles/99999", { json: { colour: "red" }, token: writer }), 400, ["colour"]);
    expectError(await call(base, "PATCH", "/articles/99999", { body: "{", headers: { "Content-Type": "application/json" }, token: writer }), 400, ["body"]);
    expectError(await call(base, "GET", "/articles/99999?colour=red"), 400, ["colour"]);
    expectError(await call(base, "PUT", "/articles/99999", { json: { id: 5, title: "x" }, token: writer }), 400, ["id"]);
  });

  it("lookup (404) before transition (409)", async () => {
    expectError(await call(base, "PATCH", "/articles/99999", { json: { status: "published" }, token: writer }), 404, ["id"]);
    expectError(await call(base, "PUT", "/articles/99999", { json: { title: "x", status: "archived" }, token: writer }), 404, ["id"]);
  });

  it("validation (400) before transition (409): a bad field beside a bad transition", async () => {
    expectError(await call(base, "PATCH", href, { json: { status: "published", rating: 9 }, token: writer }), 400, ["rating"]);
  });

  it("the token endpoint: Accept before Content-Type before size before the form", async () => {
    expectError(await raw(base, ["POST /token HTTP/1.1", "Accept: text/html", "Content-Type: application/json", `Content-Length: ${2 * MiB}`]), 406);
    const empty = form([]);
    expectError(await call(base, "POST", "/token", { body: empty, headers: { "Content-Type": "text/plain" } }), 415);
  });
});

import { createServer } from "node:http";
import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import {
  acceptsJson,
  createHttpServer,
  installErrorHandling,
  isFormContentType,
  isJsonContentType,
  isMergePatchContentType,
  parseJson,
  parseUrl,
  readBody,
  sendJson,
  sendBytes,
  sendEmpty,
  sendRefusal,
} from "../../runtime/http.gen.js";
import { exchange, getRequest, listen, stop } from "./wire.js";
import type { Exchange } from "./wire.js";

const servers: Server[] = [];

/** Starts a server (by default createHttpServer's, around `listener`) and returns its port. */
async function start(server: Server): Promise<number> {
  servers.push(server);
  return listen(server);
}

function serve(listener: RequestListener): Promise<number> {
  return start(createHttpServer(listener));
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map(stop));
});

describe("acceptsJson", () => {
  const rows: { given: string | undefined; want: boolean }[] = [
    { given: undefined, want: true },
    { given: "", want: true },
    { given: "*/*", want: true },
    { given: "application/*", want: true },
    { given: "application/json", want: true },
    { given: "Application/JSON", want: true },
    { given: "application/json; charset=utf-8", want: true },
    { given: "text/html, application/json;q=0.5", want: true },
    { given: "text/html,*/*;q=0.1", want: true },
    { given: "text/html", want: false },
    { given: "application/xml", want: false },
    { given: "text/*", want: false },
    { given: "application/json;q=0", want: false },
    { given: "application/json;q=0.000", want: false },
    { given: "*/*;q=0", want: false },
    { given: "application/json;q=0, */*", want: false },
    { given: "*/*, application/*;q=0", want: false },
    { given: "application/*;q=0, application/json", want: true },
    { given: "application/json;q=0, application/json;q=1", want: true },
    { given: "application/json;q=2", want: false },
    { given: "application/json;q=abc, text/html", want: false },
    { given: "json", want: false },
  ];
  it.each(rows)("$given -> $want", ({ given, want }) => {
    expect(acceptsJson(given)).toBe(want);
  });
});

describe("content types", () => {
  const rows: { given: string | undefined; json: boolean; mergePatch: boolean; form: boolean }[] = [
    { given: undefined, json: false, mergePatch: false, form: false },
    { given: "", json: false, mergePatch: false, form: false },
    { given: "application/json", json: true, mergePatch: true, form: false },
    { given: "APPLICATION/Json; charset=UTF-8", json: true, mergePatch: true, form: false },
    { given: "application/merge-patch+json", json: false, mergePatch: true, form: false },
    { given: "application/json-patch+json", json: false, mergePatch: false, form: false },
    { given: "text/plain", json: false, mergePatch: false, form: false },
    { given: "application/x-www-form-urlencoded", json: false, mergePatch: false, form: true },
    {
      given: "application/x-www-form-urlencoded;charset=utf-8",
      json: false,
      mergePatch: false,
      form: true,
    },
  ];
  it.each(rows)("$given", ({ given, json, mergePatch, form }) => {
    expect({
      json: isJsonContentType(given),
      mergePatch: isMergePatchContentType(given),
      form: isFormContentType(given),
    }).toEqual({ json, mergePatch, form });
  });
});

describe("parseJson", () => {
  const malformed: { given: string; bytes: Buffer; want: string }[] = [
    { given: "empty", bytes: Buffer.from(""), want: "must be valid JSON" },
    { given: "truncated", bytes: Buffer.from('{"a": '), want: "must be valid JSON" },
    { given: "trailing comma", bytes: Buffer.from("[1,]"), want: "must be valid JSON" },
    {
      given: "invalid UTF-8",
      bytes: Buffer.from([0x22, 0xc3, 0x28, 0x22]),
      want: "must be UTF-8 text",
    },
    {
      given: "lone surrogate half",
      bytes: Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]),
      want: "must be UTF-8 text",
    },
  ];
  it.each(malformed)("refuses $given with 400 naming body", ({ bytes, want }) => {
    expect(parseJson(bytes)).toEqual({
      ok: false,
      status: 400,
      headers: {},
      body: { error: "Malformed JSON", detail: { body: want } },
    });
  });

  it("parses UTF-8 JSON, dropping a byte order mark", () => {
    expect(parseJson(Buffer.from('\ufeff{"name":"Zoë","n":[1,2]}'))).toEqual({
      ok: true,
      value: { name: "Zoë", n: [1, 2] },
    });
  });

  it("keeps __proto__ as an own data property and pollutes nothing", () => {
    const outcome = parseJson(Buffer.from('{"__proto__": {"polluted": true}, "a": 1}'));
    if (!outcome.ok) throw new Error("expected a parsed value");
    const value = outcome.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["__proto__", "a"]);
    expect(Object.getOwnPropertyDescriptor(value, "__proto__")?.value).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("survives 10,000-deep nesting, given a limit that high", () => {
    const depth = 10_000;
    const outcome = parseJson(Buffer.from("[".repeat(depth) + "]".repeat(depth)), depth);
    expect(outcome.ok).toBe(true);
    const unbalanced = parseJson(Buffer.from("[".repeat(depth)), depth);
    expect(unbalanced).toMatchObject({
      ok: false,
      status: 400,
      body: { detail: { body: "must be valid JSON" } },
    });
  });

  it("refuses arrays and objects nested deeper than the limit (default 128), brackets in strings aside", () => {
    const tooDeep = { ok: false, status: 400, body: { detail: { body: "must not nest arrays and objects more than 128 levels deep" } } };
    expect(parseJson(Buffer.from("[".repeat(128) + "]".repeat(128))).ok).toBe(true);
    expect(parseJson(Buffer.from("[".repeat(129) + "]".repeat(129)))).toMatchObject(tooDeep);
    expect(parseJson(Buffer.from(`{"a":${"[".repeat(128)}${"]".repeat(128)}}`))).toMatchObject(tooDeep);
    expect(parseJson(Buffer.from("[".repeat(10_000)))).toMatchObject(tooDeep);
    expect(parseJson(Buffer.from(JSON.stringify(["[".repeat(500), '\\"[{', "{".repeat(500)]))).ok).toBe(true);
    expect(parseJson(Buffer.from("[[[1]]]"), 2)).toMatchObject({
      ok: false,
      body: { detail: { body: "must not nest arrays and objects more than 2 levels deep" } },
    });
    // A text no longer than the limit is not scanned (it cannot nest deeper); one character more is.
    expect(parseJson(Buffer.from("[[["), 2)).toMatchObject({
      ok: false,
      body: { detail: { body: "must not nest arrays and objects more than 2 levels deep" } },
    });
    expect(parseJson(Buffer.from("[["), 2)).toMatchObject({ ok: false, body: { detail: { body: "must be valid JSON" } } });
  });
});

describe("parseUrl", () => {
  const rows: { given: string; segments: string[]; query: [string, string[]][] }[] = [
    { given: "/", segments: [], query: [] },
    { given: "/articles", segments: ["articles"], query: [] },
    { given: "/articles/", segments: ["articles", ""], query: [] },
    { given: "/articles/a%2Fb", segments: ["articles", "a/b"], query: [] },
    { given: "/articles/Zo%C3%AB%20x", segments: ["articles", "Zoë x"], query: [] },
    { given: "/articles/a+b", segments: ["articles", "a+b"], query: [] },
    {
      given: "/articles?published=true&tag=a&tag=b+c&tag=d%20e&empty=",
      segments: ["articles"],
      query: [
        ["published", ["true"]],
        ["tag", ["a", "b c", "d e"]],
        ["empty", [""]],
      ],
    },
    { given: "/articles?__proto__=x", segments: ["articles"], query: [["__proto__", ["x"]]] },
    { given: "/articles#top", segments: ["articles"], query: [] },
    {
      given: "http://example.com/articles/7?x=1",
      segments: ["articles", "7"],
      query: [["x", ["1"]]],
    },
  ];
  it.each(rows)("$given", ({ given, segments, query }) => {
    const outcome = parseUrl(given);
    if (!outcome.ok) throw new Error(`refused: ${JSON.stringify(outcome.body)}`);
    expect(outcome.value.segments).toEqual(segments);
    expect([...outcome.value.query]).toEqual(query);
  });

  const refused: { given: string; want: string }[] = [
    { given: "/articles/%", want: "has malformed percent-encoding" },
    { given: "/articles/%zz", want: "has malformed percent-encoding" },
    { given: "/articles/%C3", want: "has malformed percent-encoding" },
    { given: "/articles/%FF", want: "has malformed percent-encoding" },
    { given: "*", want: "must be an absolute path such as /articles" },
    { given: "ftp://example.com/x", want: "must be an absolute path such as /articles" },
  ];
  it.each(refused)("refuses $given with 400 naming path", ({ given, want }) => {
    expect(parseUrl(given)).toEqual({
      ok: false,
      status: 400,
      headers: {},
      body: { error: "Malformed URL", detail: { path: want } },
    });
  });

  const badQueries: { given: string; detail: Record<string, string> }[] = [
    { given: "/articles?q=%FF", detail: { q: "has malformed percent-encoding" } },
    { given: "/articles?q=%zz&ok=%C3%A9", detail: { q: "has malformed percent-encoding" } },
    { given: "/articles?a=%C3&b=%A9", detail: { a: "has malformed percent-encoding", b: "has malformed percent-encoding" } },
    { given: "/articles?q=%", detail: { q: "has malformed percent-encoding" } },
    { given: "/articles?%zz=1", detail: { "%zz": "has malformed percent-encoding" } },
    { given: "/articles?a+b=%ED%A0%80", detail: { "a b": "has malformed percent-encoding" } },
    { given: "/articles?__proto__=%FF", detail: JSON.parse('{"__proto__":"has malformed percent-encoding"}') as Record<string, string> },
  ];
  it.each(badQueries)("refuses the query of $given with 400 naming each parameter, never reading U+FFFD or the escape as text", ({ given, detail }) => {
    expect(parseUrl(given)).toEqual({ ok: false, status: 400, headers: {}, body: { error: "Malformed URL", detail } });
  });
});

describe("Expect: 100-continue (createHttpServer)", () => {
  const post = (headers: readonly string[]): string => ["POST /echo HTTP/1.1", "Host: 127.0.0.1", "Expect: 100-continue", ...headers, "", ""].join("\r\n");
  const listener: RequestListener = (req, res) => {
    if (req.headers["authorization"] === undefined) return sendRefusal(res, { ok: false, status: 401, headers: {}, body: { error: "No", detail: {} } });
    void readBody(req, 16).then((outcome) => (outcome.ok ? sendJson(res, 200, { text: outcome.body.toString() }) : sendRefusal(res, outcome)));
  };

  it("answers a request refused before its body is read without inviting the body", async () => {
    const port = await serve(listener);
    const oversized = await exchange(port, post(["Authorization: x", "Content-Length: 1000"]));
    expect([oversized.status, oversized.closed]).toEqual([413, true]);
    const refused = await exchange(port, post(["Content-Length: 3"]));
    expect(refused.status).toBe(401);
  });

  it("sends 100 Continue when the body is read, then the answer", async () => {
    const port = await serve(listener);
    const reply = await exchange(port, [post(["Authorization: x", "Content-Length: 3", "Connection: close"]), "abc"], { gapMs: 200 });
    expect(reply.status).toBe(100);
    expect(reply.body).toContain('{"text":"abc"}');
  });
});

describe("JSON responses over HTTP", () => {
  it("sets Content-Type and a byte-exact Content-Length on every body", async () => {
    const port = await serve((_req, res) => sendJson(res, 201, { name: "Zoë" }, { Location: "/a/1" }));
    const reply = await exchange(port, getRequest("/"));
    expect(reply.status).toBe(201);
    expect(reply.headers.get("content-type")).toBe("application/json");
    expect(reply.headers.get("content-length")).toBe(String(Buffer.byteLength('{"name":"Zoë"}')));
    expect(reply.headers.get("location")).toBe("/a/1");
  });

  it("answers 204 with no body", async () => {
    const port = await serve((_req, res) => sendEmpty(res, 204));
    const reply = await exchange(port, getRequest("/"));
    expect(reply).toMatchObject({ status: 204, body: "" });
    expect(reply.headers.has("content-type")).toBe(false);
  });

  it("sendEmpty answers any status without a body; sendBytes sends text or bytes with their type and length", async () => {
    const empty = await serve((_req, res) => sendEmpty(res, 202, { "X-Trace": "1" }));
    expect(await exchange(empty, getRequest("/"))).toMatchObject({ status: 202, body: "" });
    const text = await serve((_req, res) => sendBytes(res, 200, { contentType: "text/plain; charset=utf-8", bytes: "hello, world" }));
    const reply = await exchange(text, getRequest("/"));
    expect(reply).toMatchObject({ status: 200, body: "hello, world" });
    expect(reply.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(reply.headers.get("content-length")).toBe("12");
    const bytes = await serve((_req, res) => sendBytes(res, 201, { contentType: "application/octet-stream", bytes: new Uint8Array([1, 2, 3]) }));
    expect((await exchange(bytes, getRequest("/"))).headers.get("content-length")).toBe("3");
  });
});

/** A server whose handler echoes the body it read, or answers readBody's refusal. */
function echoBody(limit: number, reads: { count: number }): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    readBody(req, limit).then(
      (outcome) => {
        if (!outcome.ok) return sendRefusal(res, outcome);
        reads.count += 1;
        sendJson(res, 200, { length: outcome.body.length, text: outcome.body.toString("utf8") });
      },
      () => res.destroy(),
    );
  };
}

function postHead(headerLines: readonly string[]): string {
  return ["POST /echo HTTP/1.1", "Host: 127.0.0.1", ...headerLines, "", ""].join("\r\n");
}

describe("readBody", () => {
  it("returns a body within the limit", async () => {
    const reads = { count: 0 };
    const port = await serve(echoBody(16, reads));
    const reply = await exchange(port, postHead(["Content-Length: 16", "Connection: close"]) + "0123456789abcdef");
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual({ length: 16, text: "0123456789abcdef" });
  });

  it("answers 413 from Content-Length alone, before any body byte, and closes", async () => {
    const reads = { count: 0 };
    const port = await serve(echoBody(16, reads));
    // No body byte is ever sent: the answer can only come from the header.
    const reply = await exchange(port, postHead(["Content-Length: 17"]));
    expect(reply.status).toBe(413);
    expect(reply.headers.get("content-type")).toBe("application/json");
    expect(reply.headers.get("connection")).toBe("close");
    expect(JSON.parse(reply.body)).toEqual({
      error: "Request body too large",
      detail: { body: "must not exceed 16 bytes" },
    });
    expect(reply.closed).toBe(true);
    expect(reads.count).toBe(0);
  });

  it("answers 413 once a chunked body exceeds the limit, without waiting for its end", async () => {
    const reads = { count: 0 };
    const port = await serve(echoBody(16, reads));
    const chunk = "a\r\n0123456789\r\n"; // 10 bytes
    // The terminating chunk is never sent: only the byte count can trigger the answer.
    const reply = await exchange(port, [postHead(["Transfer-Encoding: chunked"]), chunk, chunk, chunk], {
      gapMs: 20,
    });
    expect(reply.status).toBe(413);
    expect(reply.headers.get("connection")).toBe("close");
    expect(reply.closed).toBe(true);
    expect(reads.count).toBe(0);
  });

  it("reads a body that arrived while the handler was busy", async () => {
    const port = await serve((req, res) => {
      // As a generated server does: guards (asynchronous) run before the body is read.
      setTimeout(() => {
        void readBody(req, 16).then((outcome) => (outcome.ok ? sendJson(res, 200, { text: outcome.body.toString() }) : sendRefusal(res, outcome)));
      }, 50);
    });
    const reply = await exchange(port, postHead(["Content-Length: 5", "Connection: close"]) + "hello");
    expect({ status: reply.status, body: JSON.parse(reply.body) as unknown }).toEqual({
      status: 200,
      body: { text: "hello" },
    });
  });

  it("uses a 1 MiB limit by default", async () => {
    const port = await serve((req, res) => {
      void readBody(req).then((outcome) => (outcome.ok ? sendEmpty(res, 204) : sendRefusal(res, outcome)));
    });
    const reply = await exchange(port, postHead([`Content-Length: ${1024 * 1024 + 1}`]));
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.body)).toMatchObject({
      detail: { body: "must not exceed 1048576 bytes" },
    });
  });
});

describe("installErrorHandling", () => {
  function fastServer(listener: RequestListener, options: { headersTimeout: number; requestTimeout: number }): Server {
    return createHttpServer(listener, { ...options, connectionsCheckingInterval: 25 });
  }

  /** Asserts a JSON error answer written by the clientError handler, and the closed connection. */
  function expectClosingError(reply: Exchange, status: number, error: string): void {
    expect({
      status: reply.status,
      contentType: reply.headers.get("content-type"),
      contentLength: reply.headers.get("content-length"),
      connection: reply.headers.get("connection"),
      body: JSON.parse(reply.body) as unknown,
      closed: reply.closed,
    }).toEqual({
      status,
      contentType: "application/json",
      contentLength: String(Buffer.byteLength(reply.body)),
      connection: "close",
      body: { error, detail: {} },
      closed: true,
    });
  }

  const parserErrors: { name: string; given: string; status: number; error: string }[] = [
    {
      name: "malformed request line",
      given: "GARBAGE\r\n\r\n",
      status: 400,
      error: "Malformed HTTP request",
    },
    {
      name: "Content-Length with chunked framing",
      given: postHead(["Content-Length: 3", "Transfer-Encoding: chunked"]),
      status: 400,
      error: "Malformed HTTP request",
    },
    {
      name: "headers over Node's 16 KiB limit",
      given: getRequest("/", [`X-Big: ${"a".repeat(20_000)}`]),
      status: 431,
      error: "Request header fields too large",
    },
    {
      name: "chunk extensions over Node's limit",
      given: postHead(["Transfer-Encoding: chunked"]) + `1;ext=${"x".repeat(20_000)}\r\na\r\n0\r\n\r\n`,
      status: 413,
      error: "Chunk extensions too large",
    },
  ];
  it.each(parserErrors)("answers $name with $status JSON and closes", async ({ given, status, error }) => {
    const port = await serve(echoBody(1024, { count: 0 }));
    expectClosingError(await exchange(port, given), status, error);
  });

  it("answers headers that are too slow with 408 JSON and closes", async () => {
    const server = fastServer(echoBody(1024, { count: 0 }), {
      headersTimeout: 150,
      // Why so long: a 408 that comes before the client's wait ends (it ends sooner on close) is
      // then headersTimeout's, however slow a loaded machine runs the server's timers.
      requestTimeout: 60_000,
    });
    const port = await start(server);
    const reply = await exchange(port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n", { waitMs: 20_000 });
    expectClosingError(reply, 408, "Request timeout");
  });

  it("answers a body that is too slow with 408 JSON and closes", async () => {
    const server = fastServer(echoBody(1024, { count: 0 }), {
      headersTimeout: 100,
      requestTimeout: 200,
    });
    const port = await start(server);
    const reply = await exchange(port, postHead(["Content-Length: 10"]) + "01", { waitMs: 10_000 });
    expectClosingError(reply, 408, "Request timeout");
  });

  it("only closes a connection whose response has begun when the request times out", async () => {
    const server = fastServer(
      (_req, res) => {
        res.writeHead(200, { "Content-Type": "text/plain" });
        res.write("partial");
      },
      { headersTimeout: 100, requestTimeout: 200 },
    );
    const port = await start(server);
    const reply = await exchange(port, postHead(["Content-Length: 10"]) + "01", { waitMs: 10_000 });
    expect(reply.status).toBe(200);
    expect(reply.body).toContain("partial");
    expect(reply.body).not.toContain("HTTP/1.1");
    expect(reply.closed).toBe(true);
  });

  it("writes nothing into a response being sent when a request pipelined behind it is malformed", async () => {
    const server = fastServer(
      (req, res) => {
        // The request behind it is answered later: its response has not begun.
        if (req.url !== "/slow") return;
        res.writeHead(200, { "Content-Type": "text/plain" });
        res.write("partial");
      },
      { headersTimeout: 1_000, requestTimeout: 2_000 },
    );
    const port = await start(server);
    // The second request waits for the first's response; the third, sent once that response has begun, does not parse.
    const pipelined = ["GET /slow HTTP/1.1\r\nHost: a\r\n\r\nGET /next HTTP/1.1\r\nHost: a\r\n\r\n", "GARBAGE\r\n\r\n"];
    const reply = await exchange(port, pipelined, { waitMs: 10_000, gapMs: 100 });
    expect(reply.status).toBe(200);
    expect(reply.body).toContain("partial");
    expect(reply.body).not.toContain("HTTP/1.1");
    expect(reply.closed).toBe(true);
  });

  it("sets the time limits: 10 s for headers and 30 s in all by default", () => {
    const byDefault = createServer();
    installErrorHandling(byDefault);
    expect([byDefault.headersTimeout, byDefault.requestTimeout]).toEqual([10_000, 30_000]);
    const configured = createServer();
    installErrorHandling(configured, { headersTimeout: 1_000, requestTimeout: 2_000 });
    expect([configured.headersTimeout, configured.requestTimeout]).toEqual([1_000, 2_000]);
    const inverted = { headersTimeout: 3_000, requestTimeout: 2_000 };
    expect(() => installErrorHandling(createServer(), inverted)).toThrow(RangeError);
  });
});

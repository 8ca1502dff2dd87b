// A corpus of malformed and hostile requests sent as raw bytes to the
// blog fixture's generated server on 127.0.0.1. Each one gets the precise 4xx answer with a JSON
// error body (http-behaviour "Errors"); none gets a 5xx or crashes the server; no request pollutes
// a prototype; and afterwards the server still answers correctly.

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { START_TIMEOUT, compileFixture } from "../http/support.js";
import type { CompiledApi, HandlerFunction, Json } from "../http/support.js";
import { head, request, wire } from "./wire.js";
import type { WireReply } from "./wire.js";

const TOKEN = "good";
const principal = { subject: "ann", scopes: ["articles:read", "articles:write", "authors:write"] };
const auth = [`Authorization: Bearer ${TOKEN}`];
const json = [...auth, "Content-Type: application/json"];
const MiB = 1024 * 1024;

let compiled: { api: CompiledApi; dispose(): Promise<void> };
let server: Server;
let slow: Server;
let port = 0;
let slowPort = 0;
const handlerErrors: unknown[] = [];
const stored: Json[] = [];

async function listen(target: Server): Promise<number> {
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  return (target.address() as AddressInfo).port;
}

async function stop(target: Server | undefined): Promise<void> {
  if (!target?.listening) return;
  target.closeAllConnections();
  await new Promise<void>((resolve) => target.close(() => resolve()));
}

beforeAll(async () => {
  compiled = await compileFixture("blog");
  const memory = compiled.api.createMemoryHandlers();
  const keep =
    (handler: HandlerFunction): HandlerFunction =>
    async (input) => {
      const object = (await handler(input)) as Json;
      stored.push(object);
      return object;
    };
  const handlers = {
    ...memory,
    articles: {
      ...memory.articles!,
      createArticle: keep(memory.articles!.createArticle!),
      updateArticle: keep(memory.articles!.updateArticle!),
      replaceArticle: keep(memory.articles!.replaceArticle!),
    },
  };
  server = compiled.api.createServer({
    handlers,
    verifyToken: (token) => (token === TOKEN ? principal : undefined),
    issueToken: (request) => (request.password === "pw" ? { access_token: TOKEN, token_type: "bearer" } : { error: "invalid_grant" }),
    onError: (error) => handlerErrors.push(error),
  });
  port = await listen(server);
  slow = compiled.api.createServer({
    handlers: compiled.api.createMemoryHandlers(),
    verifyToken: () => principal,
    headersTimeout: 300,
    requestTimeout: 600,
    connectionsCheckingInterval: 50,
  });
  slowPort = await listen(slow);
}, START_TIMEOUT);
afterAll(async () => {
  await Promise.all([stop(server), stop(slow)]);
  await compiled?.dispose();
});

/** One hostile request: what to send, and the answer it must get. */
type Case = {
  name: string;
  send: readonly Parameters<typeof wire>[1][number][];
  status: number;
  /** The fields `detail` must name, exactly (omitted: any). */
  fields?: readonly string[];
  /** Send to the server with short time limits. */
  slow?: boolean;
  waitMs?: number;
  /** The server must close the connection after answering. */
  closes?: boolean;
  check?: (reply: WireReply) => void;
};

const post = (target: string, body: string | Buffer, lines: readonly string[] = json): Buffer => request("POST", target, body, lines);
const withTitle = (extra: string): string => `{"title":"t"${extra}}`;
const nested = (depth: number, open: string, close: string, inner = "1"): string => open.repeat(depth) + inner + close.repeat(depth);
const get = (target: string, lines: readonly string[] = []): string => head(`GET ${target} HTTP/1.1`, lines);
const bytes = (...parts: (string | number[])[]): Buffer => Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))));

/** Bad JSON: 400 naming `body`. */
const badJson: Case[] = [
  "{",
  "}",
  "[",
  '{"title":}',
  "{'title':'t'}",
  '{"title":"t",}',
  '{"title":"t"} trailing',
  '{"title":"t"}{"title":"u"}',
  "NaN",
  "Infinity",
  "undefined",
  "",
  "   ",
  '{/* c */"title":"t"}',
  '{"title":"t\u0001"}',
  '{"title":"\\x41"}',
  '{"title":"\\u12"}',
  '{title:"t"}',
  "\u0000",
  '{"title":"t"',
].map((body) => ({ name: `malformed JSON ${JSON.stringify(body)}`, send: [post("/articles", body)], status: 400, fields: ["body"] }));

/** JSON that is not an object where one is due, or an object of the wrong shape: 400 naming each bad field. */
const wrongTypes: Case[] = [
  ["null", ["body"]],
  ["[]", ["body"]],
  ['"title"', ["body"]],
  ["42", ["body"]],
  ["true", ["body"]],
  ["{}", ["title"]],
  ['{"title":1}', ["title"]],
  ['{"title":null}', ["title"]],
  ['{"title":["t"]}', ["title"]],
  ['{"title":{"t":1}}', ["title"]],
  [withTitle(',"published":"true"'), ["published"]],
  [withTitle(',"published":1'), ["published"]],
  [withTitle(',"authorId":"3"'), ["authorId"]],
  [withTitle(',"authorId":1.5'), ["authorId"]],
  [withTitle(',"tags":"a"'), ["tags"]],
  [withTitle(',"tags":["a",1,null]'), ["tags[1]", "tags[2]"]],
  [withTitle(',"rating":"5"'), ["rating"]],
  [withTitle(',"rating":6'), ["rating"]],
  [withTitle(',"rating":-1e308'), ["rating"]],
  [withTitle(',"rating":1e400'), ["rating"]],
  [`{"title":"${"x".repeat(201)}"}`, ["title"]],
  [withTitle(',"unknown":1'), ["unknown"]],
  [withTitle(',"Title":"t"'), ["Title"]],
  ['{"title":1,"body":2,"published":3,"tags":4}', ["title", "body", "published", "tags"]],
].map(([body, fields]) => ({
  name: `wrong shape ${String(body).slice(0, 60)}`,
  send: [post("/articles", body as string)],
  status: 400,
  fields: fields as string[],
}));

/** Keys that name prototypes: refused as unknown fields or parameters, never assigned. */
const prototypeKeys: Case[] = [
  ...[
    [withTitle(',"__proto__":{"polluted":"yes"}'), ["__proto__"]],
    [withTitle(',"__proto__":null'), ["__proto__"]],
    [withTitle(',"__proto__":"x"'), ["__proto__"]],
    [withTitle(',"constructor":{"prototype":{"polluted":"yes"}}'), ["constructor"]],
    [withTitle(',"prototype":{"polluted":"yes"}'), ["prototype"]],
    [withTitle(',"hasOwnProperty":1'), ["hasOwnProperty"]],
    [withTitle(',"toString":"x"'), ["toString"]],
    [withTitle(',"tags":[{"__proto__":{"polluted":"yes"}}]'), ["tags[0]"]],
    ['{"__proto__":{"title":"inherited"}}', ["title", "__proto__"]],
  ].map(([body, fields]) => ({
    name: `prototype key in a body ${String(body)}`,
    send: [post("/articles", body as string)],
    status: 400,
    fields: fields as string[],
  })),
  ...["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "__proto__[polluted]", "constructor[prototype][polluted]", "__defineGetter__"].map(
    (name) => ({
      name: `prototype key in a query: ${name}`,
      send: [get(`/articles?${encodeURIComponent(name)}=yes`)],
      status: 400,
      fields: [name],
    }),
  ),
  {
    name: "an id whose toString is no function",
    send: [request("PUT", "/articles/1", '{"title":"t","id":{"toString":1,"valueOf":1}}', json)],
    status: 400,
    fields: ["id"],
  },
  { name: "an id that is an array holding the path id", send: [request("PUT", "/articles/1", '{"title":"t","id":[1]}', json)], status: 400, fields: ["id"] },
  {
    name: "prototype key in a token form",
    send: [post("/token", "__proto__=x&constructor=y&username=u&password=no&grant_type=password", ["Content-Type: application/x-www-form-urlencoded"])],
    status: 400,
    fields: ["password"],
  },
  { name: "prototype path segment", send: [get("/__proto__")], status: 404, fields: [] },
  { name: "prototype path segment under a collection", send: [get("/articles/__proto__")], status: 400, fields: ["id"] },
  { name: "constructor as a collection", send: [get("/constructor/1")], status: 404, fields: [] },
];

/** Bodies far beyond the limit: 413 at once, without reading them; the connection closes. */
const tooLarge: Case[] = [
  {
    name: "Content-Length of 100 MB with a little data",
    send: [head("POST /articles HTTP/1.1", [...json, `Content-Length: ${100 * MiB}`]) + '{"title":"'],
    status: 413,
    fields: ["body"],
    closes: true,
  },
  {
    name: "Content-Length of 100 MB announced on a keep-alive connection",
    send: [head("POST /articles HTTP/1.1", [...json, `Content-Length: ${100 * MiB}`], true) + "x".repeat(1000)],
    status: 413,
    fields: ["body"],
    closes: true,
  },
  {
    name: "Content-Length beyond any number",
    send: [head("POST /articles HTTP/1.1", [...json, `Content-Length: ${"9".repeat(30)}`]) + "{}"],
    status: 400,
    closes: true,
  },
  { name: "a negative Content-Length", send: [head("POST /articles HTTP/1.1", [...json, "Content-Length: -1"]) + "{}"], status: 400, closes: true },
  {
    name: "a Content-Length that is not a number",
    send: [head("POST /articles HTTP/1.1", [...json, "Content-Length: ten"]) + "{}"],
    status: 400,
    closes: true,
  },
  {
    name: "two different Content-Lengths",
    send: [head("POST /articles HTTP/1.1", [...json, "Content-Length: 2", "Content-Length: 3"]) + "{}"],
    status: 400,
    closes: true,
  },
  {
    name: "Content-Length and Transfer-Encoding together (request smuggling)",
    send: [head("POST /articles HTTP/1.1", [...json, "Content-Length: 4", "Transfer-Encoding: chunked"]) + "0\r\n\r\n"],
    status: 400,
    closes: true,
  },
  {
    name: "Transfer-Encoding that is not chunked",
    send: [head("POST /articles HTTP/1.1", [...json, "Transfer-Encoding: gzip"]) + "{}"],
    status: 400,
    closes: true,
  },
  {
    name: "one chunk of 100 MB announced, past the limit after 1 MiB",
    send: [head("POST /articles HTTP/1.1", [...json, "Transfer-Encoding: chunked"]) + `${(100 * MiB).toString(16)}\r\n`, Buffer.alloc(MiB + 100, 0x61)],
    status: 413,
    fields: ["body"],
    closes: true,
  },
  {
    name: "a malformed chunk size",
    send: [head("POST /articles HTTP/1.1", [...json, "Transfer-Encoding: chunked"]) + "zz\r\n{}\r\n0\r\n\r\n"],
    status: 400,
    closes: true,
  },
  {
    name: "a token form of 100 MB announced",
    send: [head("POST /token HTTP/1.1", ["Content-Type: application/x-www-form-urlencoded", `Content-Length: ${100 * MiB}`]) + "username="],
    status: 413,
    closes: true,
  },
  {
    name: "a 100 MB body on a route that takes none is not read (the connection closes)",
    send: [head("GET /articles HTTP/1.1", [`Content-Length: ${100 * MiB}`]) + "x".repeat(1000)],
    status: 200,
    check: (reply) => expect(reply.written).toBeLessThan(MiB),
  },
];

/**
 * Nesting 10,000 deep and more: 400 naming `body` before validation (validation recurses
 * per level, so a body deeper than the server's bodyDepthLimit is refused as a whole), never a
 * stack overflow.
 */
const deep: Case[] = [
  { name: "10,000-deep arrays in a string field", send: [post("/articles", `{"title":${nested(10_000, "[", "]")}}`)], status: 400, fields: ["body"] },
  { name: "10,000-deep objects in a string field", send: [post("/articles", `{"title":${nested(10_000, '{"a":', "}")}}`)], status: 400, fields: ["body"] },
  {
    name: "10,000-deep arrays in an array of strings",
    send: [post("/articles", `{"title":"t","tags":${nested(10_000, "[", "]")}}`)],
    status: 400,
    fields: ["body"],
  },
  {
    name: "10,000-deep objects under an unknown key",
    send: [post("/articles", `{"title":"t","x":${nested(10_000, '{"a":', "}")}}`)],
    status: 400,
    fields: ["body"],
  },
  { name: "10,000-deep arrays as the whole body", send: [post("/articles", nested(10_000, "[", "]"))], status: 400, fields: ["body"] },
  {
    name: "10,000-deep objects in a PATCH",
    send: [request("PATCH", "/articles/1", `{"rating":${nested(10_000, '{"a":', "}")}}`, json)],
    status: 400,
    fields: ["body"],
  },
  { name: "100,000-deep arrays", send: [post("/articles", `{"title":${nested(100_000, "[", "]")}}`)], status: 400, fields: ["body"] },
  { name: "128-deep arrays in a string field: validated", send: [post("/articles", `{"title":${nested(127, "[", "]")}}`)], status: 400, fields: ["title"] },
  { name: "129-deep arrays in a string field: too deep", send: [post("/articles", `{"title":${nested(128, "[", "]")}}`)], status: 400, fields: ["body"] },
  { name: "400,000-deep unclosed arrays", send: [post("/articles", "[".repeat(400_000))], status: 400, fields: ["body"] },
];

/** Bytes that are not UTF-8: 400 naming `body` (or the path, the parameter). */
const invalidUtf8: Case[] = [
  ...[
    ["a lone continuation byte", bytes('{"title":"', [0x80], '"}')],
    ["0xFF", bytes('{"title":"', [0xff, 0xfe], '"}')],
    ["an overlong slash", bytes('{"title":"', [0xc0, 0xaf], '"}')],
    ["an encoded surrogate", bytes('{"title":"', [0xed, 0xa0, 0x80], '"}')],
    ["a truncated sequence at the end", bytes('{"title":"t"}', [0xe2, 0x82])],
    ["a code point above U+10FFFF", bytes('{"title":"', [0xf4, 0x90, 0x80, 0x80], '"}')],
    ["UTF-16 with a byte order mark", Buffer.from('\ufeff{"title":"t"}', "utf16le")],
    ["Latin-1 text", Buffer.from('{"title":"caf\u00e9"}', "latin1")],
  ].map(([what, body]) => ({ name: `invalid UTF-8 in a body: ${String(what)}`, send: [post("/articles", body as Buffer)], status: 400, fields: ["body"] })),
  { name: "invalid UTF-8 percent-encoded in a path", send: [get("/articles/%FF")], status: 400, fields: ["path"] },
  { name: "an encoded surrogate percent-encoded in a path", send: [get("/articles/%ED%A0%80")], status: 400, fields: ["path"] },
  { name: "invalid UTF-8 percent-encoded in a query value", send: [get("/articles?published=%FF")], status: 400, fields: ["published"] },
  { name: "invalid UTF-8 percent-encoded in a query name", send: [get("/articles?%FF=1")], status: 400 },
  {
    name: "raw bytes above 0x7F in a path",
    send: [Buffer.concat([Buffer.from("GET /articles/"), Buffer.from([0xff, 0xfe]), Buffer.from(" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")])],
    status: 400,
  },
  {
    name: "raw invalid UTF-8 in a bearer token",
    send: [
      Buffer.concat([
        Buffer.from("GET /authors/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer "),
        Buffer.from([0xc0, 0xaf]),
        Buffer.from("\r\n\r\n"),
      ]),
    ],
    status: 404,
  },
  {
    name: "raw invalid UTF-8 in a token form",
    send: [post("/token", bytes("username=", [0xff], "&password=", [0xc0], "&grant_type=password"), ["Content-Type: application/x-www-form-urlencoded"])],
    status: 400,
  },
];

/** Percent-encoding that does not decode, and paths that try to climb: 400 or 404, never 500. */
const badEncoding: Case[] = [
  ...["/articles/%", "/articles/%G1", "/articles/%2", "/%zz", "/articles/1%", "/articles/%%30"].map((target) => ({
    name: `bad percent-encoding in the path ${target}`,
    send: [get(target)],
    status: 400,
    fields: ["path"],
  })),
  { name: "an encoded NUL as an id", send: [get("/articles/%00")], status: 400, fields: ["id"] },
  { name: "an encoded slash inside an id", send: [get("/articles/1%2F2")], status: 400, fields: ["id"] },
  { name: "an encoded slash joining segments", send: [get("/articles%2F1")], status: 404, fields: [] },
  { name: "dot segments", send: [get("/articles/../authors")], status: 404, fields: [] },
  { name: "encoded dot segments", send: [get("/articles/%2e%2e/%2e%2e/etc/passwd")], status: 404, fields: [] },
  { name: "a backslash path", send: [get("/articles\\1")], status: 404, fields: [] },
  { name: "an asterisk request target", send: [head("OPTIONS * HTTP/1.1")], status: 400, fields: ["path"] },
  { name: "an absolute target with another scheme", send: [get("file:///etc/passwd")], status: 400, fields: ["path"] },
  { name: "an authority-form target", send: [get("127.0.0.1:80")], status: 400, fields: [] },
  ...["%", "%zz", "%2", "%%"].map((value) => ({
    name: `bad percent-encoding in a query value ${value}`,
    send: [get(`/articles?published=${value}`)],
    status: 400,
    fields: ["published"],
  })),
  { name: "bad percent-encoding in a query name", send: [get("/articles?%zz=1")], status: 400, fields: ["%zz"] },
  { name: "a negative id", send: [get("/articles/-1")], status: 400, fields: ["id"] },
  { name: "a fractional id", send: [get("/articles/1.5")], status: 400, fields: ["id"] },
  { name: "an exponent id", send: [get("/articles/1e3")], status: 400, fields: ["id"] },
  { name: "a hexadecimal id", send: [get("/articles/0x10")], status: 400, fields: ["id"] },
  { name: "an id of 400 digits", send: [get(`/articles/${"9".repeat(400)}`)], status: 400, fields: ["id"] },
];

/** Query parameters given twice, or in forms the API does not read: 400 naming them. */
const queries: Case[] = [
  ["published=true&published=true", ["published"]],
  ["published=true&published=false", ["published"]],
  ["authorId=1&authorId=2", ["authorId"]],
  ["status=draft&status=review", ["status"]],
  ["published=true&published", ["published"]],
  ["published[]=true", ["published[]"]],
  ["published=TRUE", ["published"]],
  ["published=", ["published"]],
  ["authorId=0x10", ["authorId"]],
  ["authorId=1e400", ["authorId"]],
  ["authorId=%203", ["authorId"]],
  ["authorId=Infinity", ["authorId"]],
  ["status=Draft", ["status"]],
  ["status=draft%00", ["status"]],
  ["=1", [""]],
  ["a=1&b=2&c=3", ["a", "b", "c"]],
].map(([search, fields]) => ({ name: `query ?${String(search)}`, send: [get(`/articles?${String(search)}`)], status: 400, fields: fields as string[] }));

/** CR and LF where a header could be split, and header values the server must not echo. */
const noInjection = (reply: WireReply): void => {
  const names = reply.head
    .toLowerCase()
    .split("\r\n")
    .slice(1)
    .map((line) => line.split(":")[0]);
  for (const forbidden of ["set-cookie", "x-injected", "location"]) expect(names, reply.head).not.toContain(forbidden);
};
const injection: Case[] = [
  {
    name: "encoded CRLF in an id (a Location or a message could echo it)",
    send: [get("/articles/1%0D%0ASet-Cookie:%20x=1")],
    status: 400,
    fields: ["id"],
    check: noInjection,
  },
  { name: "encoded CRLF in an unknown path", send: [get("/x%0D%0AX-Injected:%201")], status: 404, check: noInjection },
  { name: "encoded CRLF in a query name", send: [get("/articles?a%0D%0AX-Injected:%201=1")], status: 400, check: noInjection },
  { name: "encoded CRLF in a method's 405 message", send: [request("PUT", "/articles?%0D%0AX-Injected=1", "{}", json)], status: 405, check: noInjection },
  {
    name: "a bare CR in a header value",
    send: ["GET /articles HTTP/1.1\r\nHost: x\r\nX-A: a\rSet-Cookie: x=1\r\nConnection: close\r\n\r\n"],
    status: 400,
    check: noInjection,
  },
  {
    name: "a NUL in a header value",
    send: ["GET /articles HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\nConnection: close\r\n\r\n"],
    status: 400,
    check: noInjection,
  },
  {
    name: "a bare LF in the request line (read as HTTP/0.9 by Node)",
    send: ["GET /articles\nX-Injected: 1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"],
    status: 400,
    fields: ["version"],
    check: noInjection,
  },
  {
    name: "a header folded onto the next line (obs-fold)",
    send: ["GET /articles HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer\r\n good\r\nConnection: close\r\n\r\n"],
    status: 400,
    check: noInjection,
  },
  {
    name: "a space before a header's colon",
    send: ["GET /articles HTTP/1.1\r\nHost: x\r\nAuthorization : Bearer good\r\nConnection: close\r\n\r\n"],
    status: 400,
  },
  { name: "a header name with a non-token character", send: ["GET /articles HTTP/1.1\r\nHost: x\r\nX(A): 1\r\nConnection: close\r\n\r\n"], status: 400 },
  {
    name: "CR LF smuggled through a token form value",
    send: [post("/token", "username=u%0D%0AX-Injected:%201&password=no&grant_type=password", ["Content-Type: application/x-www-form-urlencoded"])],
    status: 400,
    fields: ["password"],
    check: noInjection,
  },
  { name: "an Accept with CR LF-looking text", send: [get("/articles", ["Accept: text/html%0D%0AX-Injected: 1"])], status: 406, check: noInjection },
];

/** Methods the server does not offer, or that Node's parser refuses. */
const methods: Case[] = [
  ...["TRACE", "PROPFIND", "PURGE", "SEARCH", "LOCK", "MKCOL", "COPY", "LINK"].map((method) => ({
    name: `${method} /articles: 405`,
    send: [head(`${method} /articles HTTP/1.1`)],
    status: 405,
    check: (reply: WireReply) => expect(reply.headers.get("allow")).toBe("GET, POST, HEAD, OPTIONS"),
  })),
  { name: "DELETE on a collection", send: [head("DELETE /articles HTTP/1.1", auth)], status: 405 },
  { name: "PATCH on the index", send: [request("PATCH", "/", "{}", json)], status: 405 },
  { name: "CONNECT to a host", send: [head("CONNECT 127.0.0.1:22 HTTP/1.1")], status: 405 },
  { name: "CONNECT to a path", send: [head("CONNECT /articles HTTP/1.1")], status: 405 },
  { name: "an unknown method", send: [head("FOO /articles HTTP/1.1")], status: 400 },
  { name: "a lower-case method", send: [head("get /articles HTTP/1.1")], status: 400 },
  { name: "a method of 1,000 letters", send: [head(`${"G".repeat(1000)} /articles HTTP/1.1`)], status: 400 },
  // RFC 9112 section 3 lets a recipient split the request line on runs of white space: served.
  { name: "two spaces in the request line", send: [head("GET  /articles HTTP/1.1")], status: 200 },
  { name: "no HTTP version (HTTP/0.9)", send: ["GET /articles\r\nHost: x\r\n\r\n"], status: 400, fields: ["version"], closes: true },
  { name: "HTTP/1.0 without Host", send: ["GET /nowhere HTTP/1.0\r\n\r\n"], status: 404, fields: [] },
  { name: "a made-up HTTP version", send: [head("GET /articles HTTP/7.3")], status: 400 },
  { name: "not HTTP at all", send: ["\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u01fc\u0003\u0003 TLS hello"], status: 400 },
  {
    name: "an Upgrade to WebSocket",
    send: [
      head("GET /articles HTTP/1.1", ["Connection: Upgrade", "Upgrade: websocket", "Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="]),
    ],
    status: 200,
  },
  {
    name: "an Upgrade to h2c",
    send: [head("GET /articles/x HTTP/1.1", ["Connection: Upgrade, HTTP2-Settings", "Upgrade: h2c", "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA"])],
    status: 400,
    fields: ["id"],
  },
];

/** Very long URLs and headers: 431 past Node's header limit, 400 or 404 below it. */
const long: Case[] = [
  { name: "a path of 100 KB", send: [get(`/${"a".repeat(100_000)}`)], status: 431 },
  { name: "a query of 100 KB", send: [get(`/articles?${"a".repeat(100_000)}=1`)], status: 431 },
  { name: "a header of 100 KB", send: [get("/articles", [`X-Long: ${"a".repeat(100_000)}`])], status: 431 },
  {
    name: "10,000 headers",
    send: [
      get(
        "/articles",
        Array.from({ length: 10_000 }, (_, i) => `X-${i}: 1`),
      ),
    ],
    status: 431,
  },
  { name: "a path of 12 KB (under the header limit)", send: [get(`/${"a".repeat(12_000)}`)], status: 404, fields: [] },
  { name: "an id of 12 KB", send: [get(`/articles/${"1".repeat(12_000)}`)], status: 400, fields: ["id"] },
  {
    name: "2,000 unknown query parameters",
    send: [get(`/articles?${Array.from({ length: 2_000 }, (_, i) => `p${i}=1`).join("&")}`)],
    status: 400,
    check: (reply) => expect(Object.keys((reply.body as Json).detail as Json).length).toBe(2_000),
  },
  { name: "800 repeats of one query parameter", send: [get(`/articles?${"published=true&".repeat(800)}`)], status: 400, fields: ["published"] },
  { name: "a bearer token of 12 KB", send: [get("/articles", [`Authorization: Bearer ${"t".repeat(12_000)}`])], status: 401 },
];

/** Guards, negotiation and media types under hostile values: the precise refusal. */
const headers: Case[] = [
  { name: "Basic credentials on a bearer route", send: [head("DELETE /articles/1 HTTP/1.1", ["Authorization: Basic YTpi"])], status: 401 },
  {
    name: "two Authorization headers, the first bad",
    send: [head("DELETE /articles/1 HTTP/1.1", ["Authorization: Bearer bad", "Authorization: Bearer good"])],
    status: 401,
  },
  { name: "Bearer with a tab", send: [head("DELETE /articles/1 HTTP/1.1", [`Authorization: Bearer\t${TOKEN}`])], status: 401 },
  { name: "an Authorization header of spaces", send: [head("DELETE /articles/1 HTTP/1.1", ["Authorization:      "])], status: 401 },
  { name: "Content-Type text/plain", send: [post("/articles", '{"title":"t"}', [...auth, "Content-Type: text/plain"])], status: 415, closes: true },
  {
    name: "Content-Type with a JSON look-alike",
    send: [post("/articles", '{"title":"t"}', [...auth, "Content-Type: application/json-seq"])],
    status: 415,
    closes: true,
  },
  { name: "no Content-Type", send: [post("/articles", '{"title":"t"}', auth)], status: 415, closes: true },
  {
    name: "two Content-Types",
    send: [post("/articles", '{"title":"t"}', [...auth, "Content-Type: text/plain", "Content-Type: application/json"])],
    status: 415,
    closes: true,
  },
  {
    name: "an Accept of 1,000 ranges, none JSON",
    send: [get("/articles", [`Accept: ${Array.from({ length: 1000 }, (_, i) => `text/x${i}`).join(", ")}`])],
    status: 406,
  },
  { name: "an Accept with a bad quality", send: [get("/articles", ["Accept: application/json;q=2"])], status: 406 },
  { name: "a form token request with JSON", send: [post("/token", '{"username":"u"}', ["Content-Type: application/json"])], status: 415, closes: true },
];

/** Clients too slow to finish: 408 with a JSON body, then the connection closes. */
const slowClients: Case[] = [
  { name: "headers never finished", send: ["GET /articles HTTP/1.1\r\nHost: x\r\n"], status: 408, slow: true, closes: true },
  { name: "only half a request line", send: ["GET /artic"], status: 408, slow: true, closes: true },
  {
    name: "headers dribbled a byte every 50 ms (slowloris)",
    send: [
      async (write, stopped) => {
        const text = `GET /articles HTTP/1.1\r\nHost: x\r\nX-Slow: ${"a".repeat(100)}\r\n\r\n`;
        for (const char of text) {
          if (stopped()) return;
          write(Buffer.from(char));
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      },
    ],
    status: 408,
    slow: true,
    closes: true,
  },
  {
    name: "a body never finished",
    send: [head("POST /articles HTTP/1.1", ["Authorization: Bearer x", "Content-Type: application/json", "Content-Length: 100"]) + '{"title"'],
    status: 408,
    slow: true,
    closes: true,
  },
  {
    name: "a chunked body never finished",
    send: [head("POST /articles HTTP/1.1", ["Authorization: Bearer x", "Content-Type: application/json", "Transfer-Encoding: chunked"]) + '5\r\n{"tit\r\n'],
    status: 408,
    slow: true,
    closes: true,
  },
  {
    name: "a token form never finished",
    send: [head("POST /token HTTP/1.1", ["Content-Type: application/x-www-form-urlencoded", "Content-Length: 50"]) + "username="],
    status: 408,
    slow: true,
    closes: true,
  },
];

const corpus: Case[] = [
  ...badJson,
  ...wrongTypes,
  ...prototypeKeys,
  ...tooLarge,
  ...deep,
  ...invalidUtf8,
  ...badEncoding,
  ...queries,
  ...injection,
  ...methods,
  ...long,
  ...headers,
  ...slowClients,
];

/** Checks a reply: the status, a JSON error body naming the fields, no internals. */
function expectAnswer(reply: WireReply, item: Case): void {
  expect(reply.status, `${item.name}: ${reply.head}\n${reply.text}`).toBe(item.status);
  if (item.status === 405 && reply.text === "") return; // HEAD: no body by definition.
  expect(reply.headers.get("content-type"), item.name).toBe("application/json");
  expect(typeof reply.body, `${item.name}: ${reply.text}`).toBe("object");
  if (item.status >= 400) {
    const body = reply.body as Json;
    if (item.status === 401) {
      expect(Object.keys(body)).toEqual(["detail"]);
    } else {
      expect(typeof body.error, reply.text).toBe("string");
      expect(typeof body.detail === "object" && body.detail !== null, reply.text).toBe(true);
      if (item.fields !== undefined) expect(Object.keys(body.detail as Json).sort(), `${item.name}: ${reply.text}`).toEqual([...item.fields].sort());
    }
    expect(reply.text).not.toMatch(/\bat .+:\d+:\d+|node:internal|Error:/);
  }
  if (item.closes) expect(reply.closed, `${item.name}: the connection closes`).toBe(true);
  item.check?.(reply);
}

describe("hostile requests against the generated blog server", () => {
  it("the corpus holds at least 100 requests", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(100);
    expect(new Set(corpus.map((c) => c.name)).size).toBe(corpus.length);
  });

  it.each(corpus.filter((c) => !c.slow).map((c) => [c.name, c] as const))("%s", async (_name, item) => {
    const reply = await wire(port, item.send, { waitMs: item.waitMs ?? 3_000 });
    expectAnswer(reply, item);
  });

  it("slow clients: 408 with a JSON body, then the connection closes", async () => {
    const replies = await Promise.all(slowClients.map((item) => wire(slowPort, item.send, { waitMs: 3_000 })));
    replies.forEach((reply, i) => expectAnswer(reply, slowClients[i]!));
  });

  it("a 100 MB body streamed without Content-Length: 413 after at most a few MB, memory stays low", async () => {
    const before = process.memoryUsage().rss;
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const reply = await wire(
      port,
      [
        head("POST /articles HTTP/1.1", [...json, "Transfer-Encoding: chunked"]),
        async (write, stopped) => {
          const deadline = Date.now() + 5_000;
          for (let sent = 0; sent < 100 * MiB && !stopped() && Date.now() < deadline; sent += chunk.length) {
            if (!write(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")])))
              await new Promise((resolve) => setTimeout(resolve, 1));
          }
        },
      ],
      { waitMs: 6_000 },
    );
    expectAnswer(reply, { name: "streamed 100 MB", send: [], status: 413, fields: ["body"], closes: true });
    expect(reply.written).toBeLessThan(100 * MiB);
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * MiB);
  });

  it("afterwards: no prototype was polluted, stored objects are plain, nothing reached onError, and the server answers", async () => {
    expect(({} as Json).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(Object.getOwnPropertyNames(Object.getPrototypeOf({})).sort());
    for (const object of stored) {
      expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
      expect(Object.keys(object)).not.toContain("__proto__");
      expect(object.polluted).toBeUndefined();
    }
    expect(handlerErrors).toEqual([]);
    const created = await wire(port, [post("/articles", '{"title":"after","tags":["a"]}')]);
    expect(created.status, created.text).toBe(201);
    const id = (created.body as Json).id as number;
    expect(created.headers.get("location")).toBe(`/articles/${id}`);
    const read = await wire(port, [get(`/articles/${id}`)]);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id, title: "after", tags: ["a"], status: "draft", published: false });
    const index = await wire(port, [get("/")]);
    expect(index.status).toBe(200);
    const still = await wire(slowPort, [get("/authors")]);
    expect(still.status).toBe(200);
  });
});

// The generated server of an OpenAPI document written by others (fixtures/openapi/shop), over real
// HTTP on 127.0.0.1: routing (two path parameters, a literal segment beating a parameter),
// the document's security requirements (bearer guard, public, optional, API-key and Basic hooks,
// alternatives), parameters read by their style, JSON and raw request bodies, and the handler's
// answers checked against the declared responses.

import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, Server } from "node:http";
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { nodeHost } from "../../src/host.js";
import { generateFiles } from "../../src/pipeline.js";
import { compileToJavaScript } from "../../src/serve/compile.js";
import { ROOT } from "../support/fixtures.js";
import { START_TIMEOUT, call, expectAuthError, expectError, obj, raw } from "./support.js";
import type { Json, Reply } from "./support.js";

/** The fixture, relative to the repository root. */
const DOCUMENT = "fixtures/openapi/shop/openapi.yaml";

type Principal = { subject: string; scopes: readonly string[] };
type Input = { [part: string]: unknown };
type Result = { status: number; body?: unknown; contentType?: string; headers?: { [name: string]: string } };
type Handler = (input: Input) => unknown;
type HookInput = { value: string | undefined; request: IncomingMessage; scopes: Json };

/** What the compiled shop code exports, as far as these tests use it. */
type ShopApi = {
  createServer(options: {
    handlers: { items: { [operationId: string]: Handler }; uploads: { [operationId: string]: Handler } };
    verifyToken: (token: string, scopes: Json, guard: Json) => unknown;
    securityHooks: { api_key: (input: HookInput) => unknown; basic: (input: HookInput) => unknown };
    onError?: (error: unknown) => void;
    bodyLimit?: number;
  }): Server;
};

/** Generates the shop document, compiles it to JavaScript in a temporary folder and imports it. */
async function compileShop(): Promise<{ api: ShopApi; HandlerResultError: new (...args: never[]) => Error; dispose(): Promise<void> }> {
  const host = { ...nodeHost(), cwd: ROOT };
  const result = await generateFiles(host, DOCUMENT, readFileSync(path.join(ROOT, DOCUMENT), "utf8"), { outDir: "generated-shop" });
  if (!result.value) throw new Error(result.diagnostics.map((d) => d.message).join("\n"));
  const dir = await mkdtemp(path.join(tmpdir(), "codegen-operations-"));
  for (const file of await compileToJavaScript(result.value)) {
    const target = path.join(dir, file.path);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, file.contents);
  }
  const api = (await import(pathToFileURL(path.join(dir, "index.gen.js")).href)) as ShopApi;
  const dispatch = (await import(pathToFileURL(path.join(dir, "runtime/dispatch.gen.js")).href)) as { HandlerResultError: new (...args: never[]) => Error };
  return { api, HandlerResultError: dispatch.HandlerResultError, dispose: () => rm(dir, { recursive: true, force: true }) };
}

// Tokens the test's verifyToken accepts, and the principals they stand for.
const READER: Principal = { subject: "reader", scopes: ["shop:read"] };
const WRITER: Principal = { subject: "writer", scopes: ["shop:read", "shop:write"] };
const NOBODY: Principal = { subject: "nobody", scopes: [] };
const TOKENS: { [token: string]: Principal } = { "reader-token": READER, "writer-token": WRITER, "nobody-token": NOBODY };
// The API key and the Basic credentials the hooks accept.
const API_KEY = "key-123";
const APP: Principal = { subject: "app", scopes: [] };
const BASIC = Buffer.from("ann:secret").toString("base64");
const ANN: Principal = { subject: "ann", scopes: [] };

const READ_SCOPES = { scopes: ["shop:read"], scopeStr: "shop:read" };
const NO_SCOPES = { scopes: [], scopeStr: "" };
const ITEM = { id: "abc", name: "Lamp", price: 12.5 };

let shop: Awaited<ReturnType<typeof compileShop>>;
let server: Server;
let base = "";
/** Every handler call: the operation and its input, in order. */
const seen: { op: string; input: Input }[] = [];
/** Every verifyToken call. */
const verified: { token: string; scopes: Json; guard: Json }[] = [];
/** Every hook call: the scheme and the credential it was given. */
const hooked: { scheme: string; value: string | undefined; scopes: Json }[] = [];
/** What onError was told. */
const errors: unknown[] = [];
/** Per-test answers of handlers; absent: the default answer below. */
const answers: { [op: string]: (input: Input) => unknown } = {};

const DEFAULT_ANSWERS: { [op: string]: (input: Input) => Result } = {
  getItem: () => ({ status: 200, body: ITEM }),
  deleteShopsByShopIdItemsByItemId: () => ({ status: 204 }),
  featuredItems: () => ({ status: 200, body: [ITEM] }),
  listItems: () => ({ status: 200, body: [ITEM] }),
  createItem: (input) => ({ status: 201, body: { id: "new-1", ...(input.body as Json) }, headers: { Location: "/shops/1/items/new-1" } }),
  upload: () => ({ status: 201, contentType: "text/plain", body: "stored" }),
};

function handler(op: string): Handler {
  return (input) => {
    // Every handler gets its request's signal; what else it gets is compared below.
    const { signal, ...rest } = input;
    expect(signal).toBeInstanceOf(AbortSignal);
    seen.push({ op, input: rest });
    return (answers[op] ?? DEFAULT_ANSWERS[op]!)(input);
  };
}

beforeAll(async () => {
  shop = await compileShop();
  server = shop.api.createServer({
    handlers: {
      items: Object.fromEntries(["getItem", "deleteShopsByShopIdItemsByItemId", "featuredItems", "listItems", "createItem"].map((op) => [op, handler(op)])),
      uploads: { upload: handler("upload") },
    },
    verifyToken: (token, scopes, guard) => {
      verified.push({ token, scopes, guard });
      return TOKENS[token];
    },
    securityHooks: {
      api_key: ({ value, scopes }) => {
        hooked.push({ scheme: "api_key", value, scopes });
        return value === API_KEY ? APP : undefined;
      },
      basic: ({ value, scopes }) => {
        hooked.push({ scheme: "basic", value, scopes });
        return value === BASIC ? ANN : undefined;
      },
    },
    onError: (error) => errors.push(error),
    bodyLimit: 256,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
}, START_TIMEOUT);

afterAll(async () => {
  if (server?.listening) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await shop?.dispose();
});

beforeEach(() => {
  seen.length = 0;
  verified.length = 0;
  hooked.length = 0;
  errors.length = 0;
  for (const op of Object.keys(answers)) delete answers[op];
});

/** The inputs the handlers were given, by operation. */
function inputs(op: string): Input[] {
  return seen.filter((call) => call.op === op).map((call) => call.input);
}

/** The one call of a handler (fails unless exactly one handler ran, and it was `op`). */
function onlyInput(op: string): Input {
  expect(seen.map((call) => call.op)).toEqual([op]);
  return seen[0]!.input;
}

/** A response of any type, read as bytes (the JSON checks of `call` do not apply). */
type BytesReply = { status: number; headers: Headers; bytes: Buffer; text: string };

async function send(method: string, target: string, init: { headers?: Record<string, string>; body?: string | Uint8Array } = {}): Promise<BytesReply> {
  const response = await fetch(base + target, {
    method,
    headers: init.headers ?? {},
    ...(init.body === undefined ? {} : { body: init.body }),
    signal: AbortSignal.timeout(2_000),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, text: bytes.toString("utf8") };
}

/** A response exactly as it came on the wire: every header line kept (repeats too), and the body. */
type WireReply = { status: number; headers: [string, string][]; body: string };

/** Sends a request head (Host and `Connection: close` added) and reads everything until the server closes. */
function wire(lines: readonly string[]): Promise<WireReply> {
  const [requestLine = "", ...headerLines] = lines;
  const request = [requestLine, "Host: 127.0.0.1", ...headerLines, "Connection: close", "", ""].join("\r\n");
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(base).port), "127.0.0.1", () => socket.write(request));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), 1_500);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      const [statusLine = "", ...rest] = text.slice(0, end).split("\r\n");
      const headers = rest.map((line): [string, string] => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]);
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body: text.slice(end + 4) });
    });
  });
}

/** The values of a header on the wire, every repeat. */
const valuesOf = (reply: WireReply, name: string): string[] => reply.headers.filter(([key]) => key === name).map(([, value]) => value);

const apiKey = { "X-Api-Key": API_KEY };
/**
 * listItems declares its errors (`default`) as application/problem+json: the server's own
 * refusals of its requests carry that type (docs/openapi.md, "How a server from a document answers errors").
 */
const PROBLEM_ERRORS = { errorType: "application/problem+json" };
const basic = { Authorization: `Basic ${BASIC}` };

describe("routing", () => {
  it("a path with two parameters reaches getItem, the integer parsed", async () => {
    const reply = await call(base, "GET", "/shops/7/items/abc", { token: "reader-token" });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual(ITEM);
    expect(onlyInput("getItem")).toEqual({ path: { shopId: 7, itemId: "abc" }, query: {}, headers: {}, cookies: {}, principal: READER, scopes: READ_SCOPES });
  });

  it("a literal segment beats a parameter: /shops/7/items/featured reaches featuredItems", async () => {
    const reply = await call(base, "GET", "/shops/7/items/featured");
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual([ITEM]);
    expect(onlyInput("featuredItems")).toEqual({ path: { shopId: 7 }, principal: undefined, scopes: NO_SCOPES });
    // The parameter route still takes any other segment there.
    seen.length = 0;
    expect((await call(base, "GET", "/shops/7/items/featured-2", { token: "reader-token" })).status).toBe(200);
    expect(onlyInput("getItem").path).toEqual({ shopId: 7, itemId: "featured-2" });
  });

  it("a bad path parameter is a validation error naming it, and no handler runs", async () => {
    const zero = expectError(await call(base, "GET", "/shops/0/items/abc", { token: "reader-token" }), 400, ["shopId"]);
    expect(zero.shopId).toMatch(/at least 1/);
    expectError(await call(base, "GET", "/shops/x/items/abc", { token: "reader-token" }), 400, ["shopId"]);
    expectError(await call(base, "GET", "/shops/1.5/items/abc", { token: "reader-token" }), 400, ["shopId"]);
    expectError(await call(base, "GET", "/shops/7/items/ABC", { token: "reader-token" }), 400, ["itemId"]);
    expectError(await call(base, "GET", "/shops/x/items/featured"), 400, ["shopId"]);
    expect(seen).toEqual([]);
  });

  it("an unknown path answers 404", async () => {
    for (const target of ["/nope", "/shops/7", "/shops/7/items", "/items/abc", "/shops/7/items/abc/more", "/uploads/x"]) {
      const reply = await call(base, "GET", target, { token: "reader-token" });
      expectError(reply, 404, []);
      expect(obj(reply).error).toBe("Not found");
    }
    expect(seen).toEqual([]);
  });

  it("a method the path does not offer answers 405 with Allow", async () => {
    const cases: [string, string, string][] = [
      // HEAD where GET is answered, and OPTIONS, are answered too.
      ["PATCH", "/items", "GET, POST, HEAD, OPTIONS"],
      ["POST", "/shops/7/items/abc", "GET, DELETE, HEAD, OPTIONS"],
      ["GET", "/uploads", "PUT, OPTIONS"],
      ["PUT", "/shops/7/items/featured", "GET, HEAD, OPTIONS"],
    ];
    for (const [method, target, allow] of cases) {
      const reply = await call(base, method, target, {
        ...(method === "GET" ? {} : { json: {} }),
        token: "writer-token",
        ...(target === "/items" ? PROBLEM_ERRORS : {}),
      });
      expectError(reply, 405, ["method"]);
      expect(reply.headers.get("allow"), `${method} ${target}`).toBe(allow);
    }
    expect(seen).toEqual([]);
  });
});

describe("security", () => {
  it("the document's shop_auth (password flow): no token answers 401 with a Bearer challenge", async () => {
    expectAuthError(await call(base, "GET", "/shops/7/items/abc"), 401, "Bearer", "Not authenticated");
    expectAuthError(await call(base, "GET", "/shops/7/items/abc", { headers: { Authorization: `Basic ${BASIC}` } }), 401, "Bearer", "Not authenticated");
    expect(verified).toEqual([]);
    expect(seen).toEqual([]);
  });

  it("the token goes to verifyToken with the required scopes and the guard; a rejected one answers 401", async () => {
    expectAuthError(await call(base, "GET", "/shops/7/items/abc", { token: "forged" }), 401, "Bearer", "Could not validate credentials");
    expect(verified).toEqual([{ token: "forged", scopes: READ_SCOPES, guard: { kind: "bearer", name: "shop_auth", autoError: true } }]);
    expect(seen).toEqual([]);
  });

  it("a valid token lacking shop:read answers 403 insufficient_scope", async () => {
    expectAuthError(
      await call(base, "GET", "/shops/7/items/abc", { token: "nobody-token" }),
      403,
      'Bearer error="insufficient_scope", scope="shop:read"',
      "Not enough permissions",
    );
    expect(verified.map((v) => v.token)).toEqual(["nobody-token"]);
    expect(seen).toEqual([]);
  });

  it("security: [] is public: the handler runs without a principal, and no token is checked", async () => {
    for (const token of [undefined, "forged", "writer-token"]) {
      const reply = await call(base, "GET", "/shops/3/items/featured", token === undefined ? {} : { token });
      expect(reply.status, reply.text).toBe(200);
    }
    expect(verified).toEqual([]);
    expect(inputs("featuredItems").map((input) => input.principal)).toEqual([undefined, undefined, undefined]);
  });

  it("[{}, {shop_auth: []}]: no credential runs without a principal, a valid token gives one, a rejected one answers 401", async () => {
    expect((await call(base, "GET", "/items")).status).toBe(200);
    expect(verified).toEqual([]);
    expect((await call(base, "GET", "/items", { token: "nobody-token" })).status).toBe(200);
    expect(verified).toEqual([{ token: "nobody-token", scopes: NO_SCOPES, guard: { kind: "bearer", name: "shop_auth", autoError: true } }]);
    // Another scheme in Authorization is no bearer credential: let in without a principal.
    expect((await call(base, "GET", "/items", { headers: basic })).status).toBe(200);
    expect(inputs("listItems").map((input) => [input.principal, input.scopes])).toEqual([
      [undefined, NO_SCOPES],
      [NOBODY, NO_SCOPES],
      [undefined, NO_SCOPES],
    ]);
    seen.length = 0;
    // (listItems declares its errors as `default`: the guard's refusal takes that shape and type.)
    const forged = await call(base, "GET", "/items", { token: "forged", ...PROBLEM_ERRORS });
    expect([forged.status, forged.headers.get("www-authenticate"), forged.body]).toEqual([
      401,
      "Bearer",
      { error: "Could not validate credentials", detail: {} },
    ]);
    expect(seen).toEqual([]);
  });

  it("the api_key hook (X-Api-Key) for createItem: given the value; undefined refuses (401), a principal reaches the handler", async () => {
    const body = { name: "Lamp" };
    expectAuthError(await call(base, "POST", "/items", { json: body }), 401, undefined, "Not authenticated");
    expectAuthError(await call(base, "POST", "/items", { json: body, headers: { "X-Api-Key": "wrong" } }), 401, undefined, "Could not validate credentials");
    // The operation's own security replaces the document's: a bearer token does not let it in.
    expectAuthError(await call(base, "POST", "/items", { json: body, token: "writer-token" }), 401, undefined, "Not authenticated");
    expect(hooked.map((h) => [h.scheme, h.value, h.scopes])).toEqual([
      ["api_key", undefined, NO_SCOPES],
      ["api_key", "wrong", NO_SCOPES],
      ["api_key", undefined, NO_SCOPES],
    ]);
    expect(verified).toEqual([]);
    expect(seen).toEqual([]);
    const reply = await call(base, "POST", "/items", { json: body, headers: apiKey });
    expect(reply.status, reply.text).toBe(201);
    expect(onlyInput("createItem")).toEqual({ body: { name: "Lamp", stock: 0 }, principal: APP, scopes: NO_SCOPES });
  });

  it("DELETE takes shop_auth with shop:write OR the api_key", async () => {
    const target = "/shops/7/items/abc";
    const byToken = await call(base, "DELETE", target, { token: "writer-token" });
    expect(byToken.status, byToken.text).toBe(204);
    const byKey = await call(base, "DELETE", target, { headers: apiKey });
    expect(byKey.status, byKey.text).toBe(204);
    // A token without shop:write, but a good key: the second alternative lets it in.
    const both = await call(base, "DELETE", target, { token: "reader-token", headers: apiKey });
    expect(both.status, both.text).toBe(204);
    expect(inputs("deleteShopsByShopIdItemsByItemId")).toEqual([
      { path: { shopId: 7, itemId: "abc" }, principal: WRITER, scopes: { scopes: ["shop:write"], scopeStr: "shop:write" } },
      { path: { shopId: 7, itemId: "abc" }, principal: APP, scopes: NO_SCOPES },
      { path: { shopId: 7, itemId: "abc" }, principal: APP, scopes: NO_SCOPES },
    ]);
    seen.length = 0;
    // Neither: the first requirement's refusal; a token lacking the scope: 403; a bad key: 401,
    // naming the bearer way in (RFC 9110 section 11.6.1: a 401 carries a challenge where there is one).
    expectAuthError(await call(base, "DELETE", target), 401, "Bearer", "Not authenticated");
    expectAuthError(
      await call(base, "DELETE", target, { token: "reader-token" }),
      403,
      'Bearer error="insufficient_scope", scope="shop:write"',
      "Not enough permissions",
    );
    expectAuthError(await call(base, "DELETE", target, { headers: { "X-Api-Key": "wrong" } }), 401, "Bearer", "Could not validate credentials");
    expect(seen).toEqual([]);
  });

  it("the basic http scheme: the hook gets the credentials after `Basic `; a refusal carries WWW-Authenticate: Basic with a realm (RFC 7617)", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
    const ok = await send("PUT", "/uploads", { headers: { ...basic, "Content-Type": "image/png" }, body: png });
    expect(ok.status, ok.text).toBe(201);
    expect(hooked).toEqual([{ scheme: "basic", value: BASIC, scopes: NO_SCOPES }]);
    expect(onlyInput("upload").principal).toEqual(ANN);
    seen.length = 0;
    hooked.length = 0;
    const bad = Buffer.from("ann:wrong").toString("base64");
    expectAuthError(
      await raw(base, ["PUT /uploads HTTP/1.1", `Authorization: Basic ${bad}`, "Content-Type: image/png", "Content-Length: 0"]),
      401,
      'Basic realm="api"',
      "Could not validate credentials",
    );
    expectAuthError(await raw(base, ["PUT /uploads HTTP/1.1", "Content-Type: image/png", "Content-Length: 0"]), 401, 'Basic realm="api"', "Not authenticated");
    expectAuthError(
      await raw(base, ["PUT /uploads HTTP/1.1", "Authorization: Bearer writer-token", "Content-Type: image/png", "Content-Length: 0"]),
      401,
      'Basic realm="api"',
      "Not authenticated",
    );
    expect(hooked.map((h) => h.value)).toEqual([bad, undefined, undefined]);
    expect(verified).toEqual([]);
    expect(seen).toEqual([]);
  });
});

describe("parameters", () => {
  const reader = { token: "reader-token" };

  it("a query array with explode: ?tag=a&tag=b", async () => {
    expect((await call(base, "GET", "/items?tag=a&tag=b")).status).toBe(200);
    expect((await call(base, "GET", "/items?tag=solo")).status).toBe(200);
    expect(inputs("listItems").map((input) => input.query)).toEqual([
      { tag: ["a", "b"], limit: 20 },
      { tag: ["solo"], limit: 20 },
    ]);
  });

  it("form with explode=false: ?fields=name,price, or repeated as clients that explode every array send it; an item outside the enum names it", async () => {
    expect((await call(base, "GET", "/shops/7/items/abc?fields=name,price", reader)).status).toBe(200);
    expect(onlyInput("getItem").query).toEqual({ fields: ["name", "price"] });
    seen.length = 0;
    expect((await call(base, "GET", "/shops/7/items/abc?fields=name&fields=price", reader)).status).toBe(200);
    expect(onlyInput("getItem").query).toEqual({ fields: ["name", "price"] });
    seen.length = 0;
    expectError(await call(base, "GET", "/shops/7/items/abc?fields=name,colour", reader), 400, ["fields[1]"]);
    expectError(await call(base, "GET", "/shops/7/items/abc?fields=name&fields=colour", reader), 400, ["fields[1]"]);
    expect(seen).toEqual([]);
  });

  it("pipeDelimited: ?sort=a|b", async () => {
    expect((await call(base, "GET", "/items?sort=a|b")).status).toBe(200);
    expect(onlyInput("listItems").query).toEqual({ sort: ["a", "b"], limit: 20 });
  });

  it("parameters whose schemas use the newer keywords parse to their type: multipleOf, and an array with uniqueItems", async () => {
    expect((await call(base, "GET", "/items?step=10&ids=3,1")).status).toBe(200);
    expect(onlyInput("listItems").query).toEqual({ step: 10, ids: [3, 1], limit: 20 });
    seen.length = 0;
    expect(expectError(await call(base, "GET", "/items?step=7", PROBLEM_ERRORS), 400, ["step"]).step).toBe("must be a multiple of 5");
    expect(expectError(await call(base, "GET", "/items?ids=1,1", PROBLEM_ERRORS), 400, ["ids"]).ids).toMatch(/duplicate items/);
    expectError(await call(base, "GET", "/items?step=x", PROBLEM_ERRORS), 400, ["step"]);
    expect(seen).toEqual([]);
  });

  it("a default applies when the parameter is absent; a bad value is a validation error", async () => {
    expect((await call(base, "GET", "/items")).status).toBe(200);
    expect((await call(base, "GET", "/items?limit=5")).status).toBe(200);
    expect(inputs("listItems").map((input) => input.query)).toEqual([{ limit: 20 }, { limit: 5 }]);
    seen.length = 0;
    const zero = expectError(await call(base, "GET", "/items?limit=0", PROBLEM_ERRORS), 400, ["limit"]);
    expect(zero.limit).toMatch(/at least 1/);
    expectError(await call(base, "GET", "/items?limit=abc", PROBLEM_ERRORS), 400, ["limit"]);
    expectError(await call(base, "GET", "/items?limit=101", PROBLEM_ERRORS), 400, ["limit"]);
    expectError(await call(base, "GET", "/items?limit=2.5", PROBLEM_ERRORS), 400, ["limit"]);
    expect(seen).toEqual([]);
  });

  it("an unknown query parameter, or a scalar given twice, is a validation error", async () => {
    const unknown = expectError(await call(base, "GET", "/items?colour=red", PROBLEM_ERRORS), 400, ["colour"]);
    expect(unknown.colour).toBe("is not a known query parameter");
    const twice = expectError(await call(base, "GET", "/items?limit=1&limit=2", PROBLEM_ERRORS), 400, ["limit"]);
    expect(twice.limit).toBe("must be given once");
    expectError(await call(base, "GET", "/shops/7/items/featured?limit=1"), 400, ["limit"]);
    expect(seen).toEqual([]);
  });

  it("a header array: X-Flags: true, false", async () => {
    expect((await call(base, "GET", "/items", { headers: { "X-Flags": "true, false" } })).status).toBe(200);
    expect((await call(base, "GET", "/items", { headers: { "X-Flags": "false" } })).status).toBe(200);
    expect(inputs("listItems").map((input) => input.headers)).toEqual([{ "X-Flags": [true, false] }, { "X-Flags": [false] }]);
    seen.length = 0;
    expectError(await call(base, "GET", "/items", { headers: { "X-Flags": "true, maybe" }, ...PROBLEM_ERRORS }), 400, ["X-Flags[1]"]);
    expect(seen).toEqual([]);
  });

  it("a header's format is checked: X-Request-Id must be a uuid", async () => {
    const id = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";
    expect((await call(base, "GET", "/shops/7/items/abc", { ...reader, headers: { "X-Request-Id": id } })).status).toBe(200);
    expect(onlyInput("getItem").headers).toEqual({ "X-Request-Id": id });
    seen.length = 0;
    const detail = expectError(await call(base, "GET", "/shops/7/items/abc", { ...reader, headers: { "X-Request-Id": "not-a-uuid" } }), 400, ["X-Request-Id"]);
    expect(detail["X-Request-Id"]).toMatch(/uuid/);
    expect(seen).toEqual([]);
  });

  it("a cookie: session=abc reaches cookies.session", async () => {
    const reply = await raw(base, ["GET /shops/7/items/abc HTTP/1.1", "Authorization: Bearer reader-token", "Cookie: theme=dark; session=abc"]);
    expect(reply.status, reply.text).toBe(200);
    expect(onlyInput("getItem")).toEqual({
      path: { shopId: 7, itemId: "abc" },
      query: {},
      headers: {},
      cookies: { session: "abc" },
      principal: READER,
      scopes: READ_SCOPES,
    });
  });
});

describe("request bodies", () => {
  const post = (init: { json?: unknown; body?: string; headers?: Record<string, string> }): Promise<Reply> =>
    call(base, "POST", "/items", { ...init, headers: { ...apiKey, ...init.headers } });

  it("createItem with valid JSON: 201 with the handler's body and Location; the handler saw the default stock: 0", async () => {
    const reply = await post({ json: { name: "Lamp", price: 12.5 } });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toEqual({ id: "new-1", name: "Lamp", price: 12.5, stock: 0 });
    expect(reply.headers.get("location")).toBe("/shops/1/items/new-1");
    expect((await post({ json: { name: "Vase", stock: 4 } })).status).toBe(201);
    expect(inputs("createItem").map((input) => input.body)).toEqual([
      { name: "Lamp", price: 12.5, stock: 0 },
      { name: "Vase", stock: 4 },
    ]);
  });

  it("allOf and oneOf are validated", async () => {
    expect((await post({ json: { name: "a", kind: "physical" } })).status).toBe(201);
    expect((await post({ json: { name: "b", kind: { url: "https://x" } } })).status).toBe(201);
    expect(inputs("createItem").map((input) => (input.body as Json).kind)).toEqual(["physical", { url: "https://x" }]);
    seen.length = 0;
    for (const kind of [{ url: 1 }, 5, "digital", { url: "https://x", extra: true }, { url: "not a uri" }]) {
      const detail = expectError(await post({ json: { name: "c", kind } }), 400, ["kind"]);
      expect(detail.kind, JSON.stringify(kind)).toBe("must match exactly one of the allowed schemas");
    }
    // Both parts of the allOf: ItemFields' price and the second part's stock.
    expectError(await post({ json: { name: "d", price: -1, stock: "many" } }), 400, ["price", "stock"]);
    expect(seen).toEqual([]);
  });

  it("a missing required field, or no body at all, is a validation error", async () => {
    expect(expectError(await post({ json: { price: 3 } }), 400, ["name"])).toEqual({ name: "is required" });
    expectError(await post({ json: { name: "" } }), 400, ["name"]);
    expectError(await post({ json: [] }), 400, ["body"]);
    expect(expectError(await post({}), 400, ["body"])).toEqual({ body: "is required" });
    expect(seen).toEqual([]);
  });

  it("the wrong content type answers 415, malformed JSON 400, a body over the limit 413", async () => {
    const wrong = expectError(await post({ body: '{"name":"x"}', headers: { "Content-Type": "text/plain" } }), 415, ["content-type"]);
    expect(wrong["content-type"]).toContain("application/json");
    const malformed = await post({ body: '{"name":', headers: { "Content-Type": "application/json" } });
    expectError(malformed, 400, ["body"]);
    expect(obj(malformed).error).toBe("Malformed JSON");
    expectError(await post({ json: { name: "x".repeat(300) } }), 413);
    expect(seen).toEqual([]);
  });

  it("upload: image/png bytes reach the handler as rawBody, exactly", async () => {
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x80, 0x7f]);
    const reply = await send("PUT", "/uploads", { headers: { ...basic, "Content-Type": "image/png" }, body: bytes });
    expect(reply.status, reply.text).toBe(201);
    const input = onlyInput("upload");
    expect(Object.keys(input).sort()).toEqual(["principal", "rawBody", "scopes"]);
    const rawBody = input.rawBody as { contentType: string; bytes: Uint8Array };
    expect(rawBody.contentType).toBe("image/png");
    expect(rawBody.bytes).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(rawBody.bytes).equals(Buffer.from(bytes))).toBe(true);
  });

  it("upload: text/plain is accepted; application/json is not (415)", async () => {
    const text = await send("PUT", "/uploads", { headers: { ...basic, "Content-Type": "text/plain" }, body: "héllo" });
    expect(text.status, text.text).toBe(201);
    const rawBody = onlyInput("upload").rawBody as { contentType: string; bytes: Uint8Array };
    expect(rawBody.contentType).toBe("text/plain");
    expect(Buffer.from(rawBody.bytes).toString("utf8")).toBe("héllo");
    seen.length = 0;
    const json = await call(base, "PUT", "/uploads", { json: { a: 1 }, headers: basic });
    const detail = expectError(json, 415, ["content-type"]);
    expect(detail["content-type"]).toContain("image/*");
    expect(seen).toEqual([]);
  });
});

describe("responses", () => {
  it("a declared non-JSON type is sent as the handler gave it", async () => {
    answers.getItem = () => ({ status: 200, contentType: "application/xml", body: "<item/>" });
    const reply = await send("GET", "/shops/7/items/abc", { headers: { Authorization: "Bearer reader-token", Accept: "application/xml" } });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers.get("content-type")).toBe("application/xml");
    expect(reply.text).toBe("<item/>");
    expect(reply.headers.get("content-length")).toBe("7");
    expect(onlyInput("getItem").principal).toEqual(READER);
  });

  it("a 2XX range admits 201 and 202", async () => {
    for (const status of [201, 202]) {
      answers.upload = () => ({ status, contentType: "text/plain", body: `stored ${String(status)}` });
      const reply = await send("PUT", "/uploads", { headers: { ...basic, "Content-Type": "text/plain" }, body: "x" });
      expect(reply.status).toBe(status);
      expect(reply.headers.get("content-type")).toBe("text/plain");
      expect(reply.text).toBe(`stored ${String(status)}`);
    }
    expect(inputs("upload").length).toBe(2);
    expect(errors).toEqual([]);
  });

  it("an undeclared status is the handler's fault: 500, and onError gets a HandlerResultError", async () => {
    answers.getItem = () => ({ status: 418, body: ITEM });
    const reply = await call(base, "GET", "/shops/7/items/abc", { token: "reader-token" });
    expect(reply.status).toBe(500);
    expect(reply.body).toEqual({ error: "Internal server error", detail: {} });
    expect(onlyInput("getItem").path).toEqual({ shopId: 7, itemId: "abc" });
    expect(errors.length).toBe(1);
    expect(errors[0]).toBeInstanceOf(shop.HandlerResultError);
    expect(String(errors[0])).toContain("418");
    // A 3XX is no declared status either (upload declares 2XX only).
    answers.upload = () => ({ status: 302, contentType: "text/plain", body: "moved" });
    expect((await call(base, "PUT", "/uploads", { headers: { ...basic, "Content-Type": "text/plain" }, body: "x" })).status).toBe(500);
    expect(errors.length).toBe(2);
    expect(errors[1]).toBeInstanceOf(shop.HandlerResultError);
  });

  it("a body that is not JSON-serialisable (BigInt) answers 500", async () => {
    answers.listItems = () => ({ status: 200, body: [{ ...ITEM, price: 10n }] });
    const reply = await call(base, "GET", "/items");
    expect(reply.status).toBe(500);
    expect(reply.body).toEqual({ error: "Internal server error", detail: {} });
    expect(inputs("listItems").length).toBe(1);
    expect(errors.length).toBe(1);
    expect(errors[0]).toBeInstanceOf(shop.HandlerResultError);
    // The server still answers.
    delete answers.listItems;
    expect((await call(base, "GET", "/items")).status).toBe(200);
  });

  it("a default response lets listItems answer 503 as application/problem+json", async () => {
    answers.listItems = () => ({ status: 503, contentType: "application/problem+json", body: { error: "Unavailable", detail: { store: "down" } } });
    const reply = await send("GET", "/items");
    expect(reply.status, reply.text).toBe(503);
    expect(reply.headers.get("content-type")).toBe("application/problem+json");
    expect(JSON.parse(reply.text)).toEqual({ error: "Unavailable", detail: { store: "down" } });
    expect(inputs("listItems").length).toBe(1);
    expect(errors).toEqual([]);
  });

  it("the handler's response headers are sent", async () => {
    answers.createItem = () => ({ status: 201, body: { ...ITEM, id: "h-1" }, headers: { Location: "/shops/9/items/h-1", "X-Trace": "t-1" } });
    const reply = await call(base, "POST", "/items", { json: { name: "Lamp" }, headers: apiKey });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get("location")).toBe("/shops/9/items/h-1");
    expect(reply.headers.get("x-trace")).toBe("t-1");
    expect(reply.body).toEqual({ ...ITEM, id: "h-1" });
  });

  it("406 when Accept excludes JSON and every response is JSON (createItem), not for getItem which declares XML", async () => {
    const refused = await call(base, "POST", "/items", { json: { name: "Lamp" }, headers: { ...apiKey, Accept: "text/html" } });
    expectError(refused, 406, ["accept"]);
    expect(seen).toEqual([]);
    // Security comes first: without the key, 401 whatever the Accept.
    expectAuthError(await call(base, "POST", "/items", { json: { name: "Lamp" }, headers: { Accept: "text/html" } }), 401, undefined);
    answers.getItem = () => ({ status: 200, contentType: "application/xml", body: "<item/>" });
    const xml = await send("GET", "/shops/7/items/abc", { headers: { Authorization: "Bearer reader-token", Accept: "application/xml" } });
    expect(xml.status, xml.text).toBe(200);
    expect(xml.headers.get("content-type")).toBe("application/xml");
    expect(onlyInput("getItem").path).toEqual({ shopId: 7, itemId: "abc" });
  });
});

// Beyond the brief: edge cases of the same features that a client or proxy relies on.
describe("edge cases", () => {
  it('a percent-encoded delimiter is part of its value: ?sort=a%7Cb|c is ["a|b", "c"] (RFC 6570 encodes values, not delimiters)', async () => {
    expect((await call(base, "GET", "/items?sort=a%7Cb|c")).status).toBe(200);
    expect(onlyInput("listItems").query).toEqual({ sort: ["a|b", "c"], limit: 20 });
  });

  it("a 204 never carries Content-Length or Content-Type, even when the handler returned a body (RFC 9110 section 8.6)", async () => {
    answers.deleteShopsByShopIdItemsByItemId = () => ({ status: 204, body: { deleted: true } });
    const reply = await wire(["DELETE /shops/7/items/abc HTTP/1.1", "Authorization: Bearer writer-token"]);
    expect(onlyInput("deleteShopsByShopIdItemsByItemId").path).toEqual({ shopId: 7, itemId: "abc" });
    // A body on a 204 is the handler's fault (docs/openapi.md, "OpenAPI documents as input"): 500, never a 204 with framing headers.
    expect(reply.status).toBe(500);
    expect(valuesOf(reply, "content-length")).not.toContain("16");
  });

  it.each([{ "content-length": "2" }, { "content-type": "text/html" }, { "Transfer-Encoding": "chunked" }])(
    "the handler's headers cannot duplicate or contradict the framing headers the server writes: %j",
    async (headers: { [name: string]: string }) => {
      answers.getItem = () => ({ status: 200, body: ITEM, headers });
      const reply = await wire(["GET /shops/7/items/abc HTTP/1.1", "Authorization: Bearer reader-token"]);
      expect(onlyInput("getItem").principal).toEqual(READER);
      // Ignoring the header or refusing the result (500) are both fine; contradictory framing is not.
      expect([200, 500]).toContain(reply.status);
      const lengths = valuesOf(reply, "content-length");
      expect(lengths.length, "one Content-Length").toBe(1);
      expect(valuesOf(reply, "content-type").length, "one Content-Type").toBe(1);
      expect(valuesOf(reply, "transfer-encoding"), "no Transfer-Encoding beside Content-Length").toEqual([]);
      expect(Buffer.byteLength(reply.body, "latin1")).toBe(Number(lengths[0]));
    },
  );
});

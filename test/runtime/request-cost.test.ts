// What one request costs the generated server beyond the work itself: the listeners
// Node calls and the promises made between a request's arrival and its answer. Counted, never
// timed: a GET and a POST of a fixture whose handlers and token check answer at once, through the
// compiled listener, with requests and responses made in this process (no socket, no client).
import { createHook } from "node:async_hooks";
import { EventEmitter } from "node:events";
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { PassThrough } from "node:stream";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpServer, splitPath } from "../../runtime/http.gen.js";
import { compileFixture } from "../http/support.js";

describe("createHttpServer", () => {
  it("has Node call one listener per request: the API's (the clientError answer keeps no record per request)", () => {
    const server = createHttpServer(() => undefined);
    expect(server.listenerCount("request")).toBe(1);
  });
});

describe("splitPath", () => {
  it("splits a path as slice(1).split('/') does, empty segments included", () => {
    const path = fc.array(fc.constantFrom("a", "b", "/", "%2F", ""), { maxLength: 12 }).map((parts) => `/${parts.join("")}`);
    fc.assert(
      fc.property(path, (p) => {
        expect(splitPath(p)).toEqual(p.slice(1).split("/"));
      }),
    );
  });
});

const TOKEN = "t0ken";
const BODY = JSON.stringify({ title: "Write", done: true });

/** A response that records what was sent and resolves once it ends. */
function response(done: (sent: { status: number; body: string }) => void): ServerResponse {
  let status = 0;
  const res = {
    writeHead(code: number) {
      status = code;
      return res;
    },
    end(body: string) {
      done({ status, body });
    },
    on: () => res,
    once: () => res,
    destroy() {
      done({ status: -1, body: "destroyed" });
    },
  };
  return res as unknown as ServerResponse;
}

function request(method: string, url: string, body?: string): IncomingMessage {
  const headers: { [name: string]: string } = { authorization: `Bearer ${TOKEN}`, accept: "application/json", host: "127.0.0.1" };
  if (body !== undefined) Object.assign(headers, { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) });
  const fields = { method, url, headers, rawHeaders: Object.entries(headers).flat(), httpVersionMajor: 1, complete: body === undefined, socket: {} };
  const stream = Object.assign(new PassThrough(), fields);
  stream.end(body);
  // Why not read to its end for a GET: a GET answered at once is answered before Node marks it complete.
  return stream as unknown as IncomingMessage;
}

/**
 * The promises the code in `dir` makes from calling the listener until the answer ends, and the
 * answer. Why by the stack: the test's own awaits make promises meanwhile, which are not the server's.
 */
async function promisesOf(dir: string, listener: RequestListener, req: IncomingMessage): Promise<{ promises: number; status: number }> {
  let promises = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === "PROMISE" && new Error().stack?.includes(dir) === true) promises++;
    },
  });
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 30;
  try {
    const sent = await new Promise<{ status: number; body: string }>((resolve) => {
      hook.enable();
      listener(
        req,
        response((answer) => {
          hook.disable();
          resolve(answer);
        }),
      );
    });
    return { promises, status: sent.status };
  } finally {
    hook.disable();
    Error.stackTraceLimit = limit;
  }
}

describe("the promises of one request", () => {
  let compiled: Awaited<ReturnType<typeof compileFixture>>;
  let listener: RequestListener;
  beforeAll(async () => {
    compiled = await compileFixture("guard-password");
    const api = compiled.api as typeof compiled.api & { createRequestListener(options: object): RequestListener };
    listener = api.createRequestListener({
      handlers: api.createMemoryHandlers(),
      verifyToken: (token: string) => (token === TOKEN ? { subject: "ann", scopes: ["tasks:read", "tasks:write"] } : undefined),
    });
  }, 60_000);
  afterAll(() => compiled?.dispose());

  it("a POST whose handler answers at once: the body's promise, its reaction, and the listener's guard; a GET by id none", async () => {
    const created = await promisesOf(compiled.dir, listener, request("POST", "/tasks", BODY));
    expect(created.status).toBe(201);
    // Before: readBody's promise, its `.then`, then one `.then` per step of the host (5 in all).
    expect(created.promises).toBeLessThanOrEqual(3);
    const found = await promisesOf(compiled.dir, listener, request("GET", "/tasks/1"));
    expect(found).toEqual({ promises: 0, status: 200 });
  });

  it("a request whose handler is awaited keeps its work on itself: no WeakMap entry per request", async () => {
    // Why counted: each short-lived weak key is looked at by every garbage collection, and a set
    // cost about 1 µs on Node 20 (the work lives in a private field of the request instead: privateSlot).
    const api = compiled.api as typeof compiled.api & { createRequestListener(options: object): RequestListener };
    const memory = api.createMemoryHandlers() as { [resource: string]: { [operation: string]: (input: unknown) => unknown } };
    // The memory store's handlers, each answering through a promise, as a database's do.
    const handlers = Object.fromEntries(
      Object.entries(memory).map(([resource, operations]) => [
        resource,
        Object.fromEntries(Object.entries(operations).map(([name, handler]) => [name, (input: unknown) => Promise.resolve(handler(input))])),
      ]),
    );
    const errors: unknown[] = [];
    const awaited = api.createRequestListener({
      handlers,
      onError: (error: unknown) => errors.push(error),
      verifyToken: (token: string) => (token === TOKEN ? { subject: "ann", scopes: ["tasks:read", "tasks:write"] } : undefined),
    });
    // A request on a connection: the server watches it for the client going away while it awaits.
    const connected = (method: string, url: string, body?: string): IncomingMessage =>
      Object.assign(request(method, url, body), { socket: new EventEmitter() });
    // A first request of each kind builds what is kept per operation.
    await promisesOf(compiled.dir, awaited, connected("POST", "/tasks", BODY));
    await promisesOf(compiled.dir, awaited, connected("GET", "/tasks/1"));
    let sets = 0;
    const set = WeakMap.prototype.set;
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 30;
    WeakMap.prototype.set = function (this: WeakMap<object, unknown>, key: object, value: unknown) {
      if (new Error().stack?.includes(compiled.dir) === true) sets++;
      return set.call(this, key, value);
    };
    try {
      expect((await promisesOf(compiled.dir, awaited, connected("POST", "/tasks", BODY))).status, String(errors[0])).toBe(201);
      expect((await promisesOf(compiled.dir, awaited, connected("GET", "/tasks/2"))).status, String(errors[0])).toBe(200);
    } finally {
      WeakMap.prototype.set = set;
      Error.stackTraceLimit = limit;
    }
    expect(sets).toBe(0);
  });

  it("each handler call defines one property, its input's `signal` getter: none for the input's request or a stored object's ETag", async () => {
    // Why counted: Object.defineProperty goes through V8's runtime (about 0.3 µs a call on Node
    // 20); the request and the ETag are kept in private fields instead.
    const defined: PropertyKey[] = [];
    const defineProperty = Object.defineProperty;
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 30;
    Object.defineProperty = ((target: object, key: PropertyKey, descriptor: PropertyDescriptor) => {
      if (new Error().stack?.includes(compiled.dir) === true) defined.push(key);
      return defineProperty(target, key, descriptor);
    }) as typeof Object.defineProperty;
    try {
      const created = await promisesOf(compiled.dir, listener, request("POST", "/tasks", BODY));
      expect(created.status).toBe(201);
      const found = await promisesOf(compiled.dir, listener, request("GET", "/tasks/1"));
      expect(found.status).toBe(200);
    } finally {
      Object.defineProperty = defineProperty;
      Error.stackTraceLimit = limit;
    }
    // Before: the input's call site and its `signal` per handler call, and the ETag of the object created.
    expect(defined).toEqual(["signal", "signal"]);
  });
});

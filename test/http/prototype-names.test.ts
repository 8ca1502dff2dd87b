// Names that Object.prototype also has (`constructor`, `toString`, `valueOf`,
// `hasOwnProperty`, `__proto__`), in every input that becomes a key the generated server looks up:
// state names and transition targets, link rels, field names, filter values, scope names, query
// parameter names, form field names and header names. A look-up that finds Object.prototype's
// member instead of "none" answered 500 (a state `constructor`) or made up a link (a ref field
// `valueOf` that is not set). The fixture is fixtures/valid/prototype-names.

import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeHost } from "../../src/host.js";
import { generateFiles } from "../../src/pipeline.js";
import { compileToJavaScript } from "../../src/serve/compile.js";
import type { RunningServer } from "../../src/serve/serve.js";
import { ROOT } from "../support/fixtures.js";
import { startFixtureServer } from "../support/generated.js";
import { START_TIMEOUT, call, expectError, form, issueToken, list, obj, postForm, raw } from "./support.js";
import type { Json } from "./support.js";

const PROTOTYPE_NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"] as const;
const user = { name: "ann", password: "secret", scopes: [...PROTOTYPE_NAMES] };
let server: RunningServer;
let base = "";
let token = "";

beforeAll(async () => {
  server = await startFixtureServer("prototype-names", [user]);
  base = server.url;
  token = await issueToken(base, user, PROTOTYPE_NAMES, "/token");
}, START_TIMEOUT);
afterAll(() => server?.close());

async function createTicket(body: Json = {}): Promise<Json> {
  const reply = await call(base, "POST", "/tickets", { json: { title: "t", ...body }, token });
  expect(reply.status, reply.text).toBe(201);
  return obj(reply);
}

/** Moves a ticket through declared transitions, checking each step. */
async function moveTo(id: unknown, ...states: string[]): Promise<Json> {
  let last: Json = {};
  for (const status of states) {
    const reply = await call(base, "PATCH", `/tickets/${String(id)}`, { json: { status }, token });
    expect(reply.status, reply.text).toBe(200);
    last = obj(reply);
    expect(last.status).toBe(status);
  }
  return last;
}

const rels = (ticket: Json) => (ticket.links as { rel: string }[]).map((link) => link.rel);

describe("states and transitions named like Object.prototype's members", () => {
  it("a final state `constructor` refuses every change with 409, not 500", async () => {
    const ticket = await createTicket();
    await moveTo(ticket.id, "constructor");
    for (const status of ["open", "toString", "constructor2", "__proto__"]) {
      const reply = await call(base, "PATCH", `/tickets/${String(ticket.id)}`, { json: { status }, token });
      if (status === "constructor2" || status === "__proto__") {
        // Not a value of the status enum: a validation error, before any transition is looked up.
        expectError(reply, 400, ["status"]);
        continue;
      }
      const detail = expectError(reply, 409, ["status"]);
      expect(detail.status).toBe("cannot change from constructor: it is a final state");
    }
    // PUT takes the same transition rules.
    const put = await call(base, "PUT", `/tickets/${String(ticket.id)}`, { json: { title: "t", status: "open" }, token });
    expect(expectError(put, 409, ["status"]).status).toBe("cannot change from constructor: it is a final state");
  });

  it("the final states `valueOf` (reached through `toString`) and `hasOwnProperty`'s way back", async () => {
    const ticket = await createTicket();
    await moveTo(ticket.id, "toString", "valueOf");
    const reply = await call(base, "PATCH", `/tickets/${String(ticket.id)}`, { json: { status: "toString" }, token });
    expect(expectError(reply, 409, ["status"]).status).toBe("cannot change from valueOf: it is a final state");

    const other = await createTicket();
    await moveTo(other.id, "hasOwnProperty", "open", "toString");
    const refused = await call(base, "PATCH", `/tickets/${String(other.id)}`, { json: { status: "hasOwnProperty" }, token });
    expect(expectError(refused, 409, ["status"]).status).toBe("cannot change from toString to hasOwnProperty; allowed: valueOf");
  });
});

describe("link rels and a ref field named like Object.prototype's members", () => {
  it("offers each declared link in its states only, and no ref link for an unset `valueOf`", async () => {
    const ticket = await createTicket();
    // `valueOf` is a ref to owners; unset, it makes no link (Object.prototype.valueOf is no id).
    expect(rels(ticket)).toEqual(["self", "constructor"]);
    expect(rels(await moveTo(ticket.id, "toString"))).toEqual(["self", "toString"]);
    const other = await createTicket();
    expect(rels(await moveTo(other.id, "hasOwnProperty"))).toEqual(["self", "hasOwnProperty"]);
    const third = await createTicket();
    expect(rels(await moveTo(third.id, "constructor"))).toEqual(["self", "toString"]);
  });

  it("links a set `valueOf` to its owner", async () => {
    const owner = obj(await call(base, "POST", "/owners", { json: { name: "o" }, token }));
    const ticket = await createTicket({ valueOf: owner.id });
    expect(ticket.links).toContainEqual({ rel: "owner", method: "GET", href: `/owners/${String(owner.id)}` });
  });
});

describe("fields, filters and query parameters named like Object.prototype's members", () => {
  it("stores and filters on `constructor`, `toString` and `hasOwnProperty`, with prototype names as values", async () => {
    const a = await createTicket({ constructor: "__proto__", toString: 7, hasOwnProperty: true });
    const b = await createTicket({ constructor: "toString", toString: 8, hasOwnProperty: false });
    expect(a).toMatchObject({ constructor: "__proto__", toString: 7, hasOwnProperty: true });
    const ids = async (query: string) =>
      list(await call(base, "GET", `/tickets?${query}`, { token }))
        .map((t) => t.id)
        .filter((id) => id === a.id || id === b.id);
    expect(await ids("constructor=__proto__")).toEqual([a.id]);
    expect(await ids("constructor=toString")).toEqual([b.id]);
    expect(await ids("toString=8")).toEqual([b.id]);
    expect(await ids("hasOwnProperty=true")).toEqual([a.id]);
    expect(await ids("constructor=constructor")).toEqual([]);
  });

  it.each(["__proto__", "valueOf2", "isPrototypeOf", "propertyIsEnumerable", "__defineGetter__", "toLocaleString"])(
    "refuses the undeclared query parameter %s with 400 naming it",
    async (name) => {
      const reply = await call(base, "GET", `/tickets?${name}=1`, { token });
      expectError(reply, 400, [name]);
    },
  );

  it("refuses fields that are not declared, named like Object.prototype's members", async () => {
    for (const name of ["__proto__", "isPrototypeOf", "toLocaleString"]) {
      const reply = await call(base, "POST", "/tickets", {
        body: `{"title": "t", ${JSON.stringify(name)}: {"x": 1}}`,
        headers: { "Content-Type": "application/json" },
        token,
      });
      expectError(reply, 400, [name]);
    }
  });
});

describe("scopes, form fields and headers named like Object.prototype's members", () => {
  it("scopes `__proto__`, `constructor` and `toString` are required and granted like any other", async () => {
    const readOnly = await issueToken(base, user, ["__proto__"], "/token");
    expect((await call(base, "GET", "/tickets", { token: readOnly })).status).toBe(200);
    const refused = await call(base, "POST", "/tickets", { json: { title: "t" }, token: readOnly });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope", scope="constructor __proto__"');
    const ticket = await createTicket();
    const noDelete = await call(base, "DELETE", `/tickets/${String(ticket.id)}`, { token: readOnly });
    expect(noDelete.headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope", scope="toString"');
    const deleter = await issueToken(base, user, ["toString"], "/token");
    expect((await call(base, "DELETE", `/tickets/${String(ticket.id)}`, { token: deleter })).status).toBe(204);
  });

  it("the token form ignores fields named like Object.prototype's members", async () => {
    const fields: [string, string][] = [
      ["grant_type", "password"],
      ["username", "ann"],
      ["password", "secret"],
      ["scope", "__proto__ constructor"],
      ...PROTOTYPE_NAMES.map((name): [string, string] => [name, "x"]),
    ];
    const reply = await postForm(base, "/token", form(fields));
    expect(reply.status, reply.text).toBe(200);
    expect(obj(reply).scope).toBe("__proto__ constructor");
    // A form of nothing but such names: every required field is still missing.
    const empty = await postForm(base, "/token", form(PROTOTYPE_NAMES.map((name): [string, string] => [name, "x"])));
    expect(empty.status).toBe(400);
    expect(Object.keys(obj(empty).detail as Json).sort()).toEqual(["password", "username"]);
  });

  it("request headers named like Object.prototype's members change nothing", async () => {
    const headers = PROTOTYPE_NAMES.map((name) => `${name}: 1`);
    const anonymous = await raw(base, ["GET /tickets HTTP/1.1", ...headers]);
    expect(anonymous.status).toBe(401);
    const allowed = await raw(base, ["GET /tickets HTTP/1.1", ...headers, `Authorization: Bearer ${token}`]);
    expect(allowed.status, allowed.text).toBe(200);
  });
});

describe("an OpenAPI document written by others, with names like Object.prototype's members", () => {
  // Written as JSON text: `__proto__` keys stay own keys, as they are in the document.
  const documentText = JSON.stringify({
    openapi: "3.1.0",
    info: { title: "Prototype names", version: "1" },
    components: {
      schemas: {
        constructor: {
          type: "object",
          additionalProperties: false,
          required: ["toString"],
          // A computed key: written bare in an object literal, `__proto__` would set the prototype.
          properties: {
            toString: { type: "integer" },
            valueOf: { type: "string", default: "v" },
            ["__proto__"]: { type: "object", properties: { polluted: { type: "boolean" } }, default: { polluted: false } },
          },
        },
      },
      securitySchemes: { constructor: { type: "apiKey", in: "header", name: "constructor" } },
    },
    paths: {
      "/things": {
        post: {
          operationId: "constructor",
          security: [{ constructor: [] }],
          parameters: [
            { name: "constructor", in: "query", schema: { type: "string" } },
            { name: "__proto__", in: "query", schema: { type: "array", items: { type: "string" }, default: ["d"] } },
            { name: "toString", in: "header", schema: { type: "string" } },
            { name: "valueOf", in: "cookie", schema: { type: "string" } },
          ],
          requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/constructor" } } } },
          responses: { "200": { description: "ok", content: { "application/json": { schema: {} } } } },
        },
      },
    },
  });
  let dispose: (() => Promise<void>) | undefined;
  let generatedDir = "";
  let other: Server | undefined;
  let url = "";
  const inputs: Json[] = [];

  beforeAll(async () => {
    const host = { ...nodeHost(), cwd: ROOT };
    const result = await generateFiles(host, "prototype-names.json", documentText, { outDir: "generated" });
    if (!result.value) throw new Error(result.diagnostics.map((d) => d.message).join("\n"));
    const dir = await mkdtemp(path.join(tmpdir(), "codegen-prototype-"));
    dispose = () => rm(dir, { recursive: true, force: true });
    // The TypeScript beside the JavaScript, for tsc below.
    for (const file of [...(await compileToJavaScript(result.value)), ...result.value.map((f) => ({ ...f, path: `src/${f.path}` }))]) {
      await mkdir(path.dirname(path.join(dir, file.path)), { recursive: true });
      await writeFile(path.join(dir, file.path), file.contents);
    }
    await writeFile(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({ extends: path.join(ROOT, "test/support/tsconfig.generated.json"), include: ["src/**/*.ts"] }),
    );
    generatedDir = dir;
    const api = (await import(pathToFileURL(path.join(dir, "index.gen.js")).href)) as {
      createServer(options: object): Server;
    };
    other = api.createServer({
      handlers: {
        things: {
          constructorOperation: (input: Json) => {
            inputs.push(input);
            return { status: 200, body: { ok: true } };
          },
        },
      },
      verifyToken: () => undefined,
      securityHooks: { constructor: ({ value }: { value: string | undefined }) => (value === "key" ? { subject: "k", scopes: [] } : undefined) },
    });
    await new Promise<void>((resolve) => other!.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  }, START_TIMEOUT);
  afterAll(async () => {
    await new Promise((resolve) => other?.close(resolve));
    await dispose?.();
  });

  it("reads parameters named `constructor`, `__proto__`, `toString` and `valueOf` as own keys", async () => {
    const reply = await call(url, "POST", "/things?constructor=c", {
      json: { toString: 1 },
      headers: { constructor: "key", toString: "t", Cookie: "valueOf=v" },
    });
    expect(reply.status, reply.text).toBe(200);
    const input = inputs.at(-1)!;
    const query = input.query as Json;
    expect(Object.getPrototypeOf(query)).toBe(Object.prototype);
    expect(Object.hasOwn(query, "__proto__")).toBe(true);
    expect(query.constructor).toBe("c");
    // The array parameter's default, as an own key, not the query's prototype.
    expect(Object.getOwnPropertyDescriptor(query, "__proto__")?.value).toEqual(["d"]);
    expect(input.headers).toEqual({ toString: "t" });
    expect(input.cookies).toEqual({ valueOf: "v" });
    const body = input.body as Json;
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(Object.keys(body).sort()).toEqual(["__proto__", "toString", "valueOf"]);
    expect([body.toString, body.valueOf]).toEqual([1, "v"]);
    // The default of a property named `__proto__`: an own property, not the body's prototype.
    expect(Object.getOwnPropertyDescriptor(body, "__proto__")?.value).toEqual({ polluted: false });
  });

  it("a client's `__proto__` object in a body stays an own property, never the body's prototype", async () => {
    const reply = await call(url, "POST", "/things", {
      body: '{"toString": 1, "__proto__": {"polluted": true}}',
      headers: { constructor: "key", "Content-Type": "application/json" },
    });
    expect(reply.status, reply.text).toBe(200);
    const body = inputs.at(-1)!.body as Json;
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(body.polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(body, "__proto__")?.value).toEqual({ polluted: true });
    expect(({} as Json).polluted).toBeUndefined();
  });

  it("refuses a missing API key of the scheme `constructor`, and a body without `toString`", async () => {
    expect((await call(url, "POST", "/things", { json: { toString: 1 } })).status).toBe(401);
    const reply = await call(url, "POST", "/things", { json: {}, headers: { constructor: "key" } });
    expectError(reply, 400, ["toString"]);
  });

  // Last: tsc's seconds leave the client's kept-alive connection idle until the server's
  // keep-alive timeout closes it, and a request sent at that moment is reset (seen under load).
  it("generates code that compiles under tsc --strict (a property `constructor` was typed as Object's member)", () => {
    execFileSync(path.join(ROOT, "node_modules/.bin/tsc"), ["-p", path.join(generatedDir, "tsconfig.json")], { encoding: "utf8" });
  }, 60_000);
});

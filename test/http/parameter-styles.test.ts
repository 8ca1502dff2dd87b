// Parameters of every style OpenAPI 3.1 defines for query, header and cookie
// parameters (fixtures/openapi/parameters): deepObject (nested, arrays of objects), form objects
// exploded and not, pipe- and space-delimited objects, header objects (simple, exploded and not),
// cookie arrays and objects, and parameters described by `content: application/json`. The
// generated server is started and spoken to over real HTTP on 127.0.0.1; hostile keys
// (`__proto__`, `constructor`), deep nesting, thousands of keys and huge indices get a 400 with a
// clear detail or are plain fields, never a prototype. The handler input's types are compiled.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileTrees } from "../support/generated-code.js";
import { ROOT } from "../support/fixtures.js";
import { call, closeLocal, compileText, expectError, generateText, listenLocal, obj, START_TIMEOUT } from "./support.js";
import type { Json } from "./support.js";

/** Object.prototype's own names before any request: a request must not add one. */
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).sort();

const DOCUMENT = readFileSync(path.join(ROOT, "fixtures/openapi/parameters/openapi.yaml"), "utf8");

describe("parameter styles over HTTP (item 3)", () => {
  let server: Server;
  let at = "";
  let dispose = async () => {};
  /** The last input a handler was given. */
  let received: Json = {};

  beforeAll(async () => {
    const compiled = await compileText(DOCUMENT);
    dispose = compiled.dispose;
    const echo = (input: Json) => {
      received = input;
      return { status: 200, body: { path: input.path, query: input.query, headers: input.headers, cookies: input.cookies } };
    };
    server = compiled.api.createServer({
      handlers: { search: { search: echo, meta: echo, free: echo, headers: echo, point: echo } },
      verifyToken: () => undefined,
    });
    at = await listenLocal(server);
  }, START_TIMEOUT);
  afterAll(async () => {
    await closeLocal(server);
    await dispose();
  });

  const query = async (target: string): Promise<Json> => {
    const reply = await call(at, "GET", target);
    expect(reply.status, reply.text).toBe(200);
    return obj(reply).query as Json;
  };

  describe("deepObject", () => {
    it("reads nested fields, repeated values as arrays, and arrays of objects by index", async () => {
      const target =
        "/search?filter[name]=lamp&filter[size][min]=2&filter[size][max]=9&filter[tags]=a&filter[tags]=b" +
        "&filter[items][0][sku]=x&filter[items][0][qty]=2&filter[items][1][sku]=y";
      expect(await query(target)).toEqual({
        filter: { name: "lamp", size: { min: 2, max: 9 }, tags: ["a", "b"], items: [{ sku: "x", qty: 2 }, { sku: "y" }] },
      });
    });

    it("reads `[]` as appending, and percent-encoded brackets and values", async () => {
      expect(await query("/search?filter[tags][]=a&filter[tags][]=b%26c")).toEqual({ filter: { tags: ["a", "b&c"] } });
      expect(await query("/search?filter%5Bname%5D=a%20b")).toEqual({ filter: { name: "a b" } });
    });

    it.each<[string, string, Json]>([
      ["a field of the wrong type, at its path", "filter[size][min]=x", { "filter.size.min": "must be an integer" }],
      ["a field the schema does not declare", "filter[colour]=red", { "filter.colour": "is not a known field" }],
      ["an item's field, at its index", "filter[items][0][sku]=x&filter[items][0][qty]=0", { "filter.items[0].qty": "must be at least 1" }],
      ["a scalar given twice", "filter[name]=a&filter[name]=b", { "filter.name": "must be given once" }],
      ["items that do not start at 0", "filter[items][1][sku]=x", { "filter.items": "must index its items from 0 without gaps ([0], [1], ...)" }],
      ["a field given as a value and with fields", "filter[size]=1&filter[size][min]=2", { "filter.size": "is given both as a value and with fields" }],
      ["a key that is not a run of brackets", "filter[name", { "filter[name": "must be written as name[field] (brackets holding no [ or ])" }],
    ])("answers 400 for %s", async (_name, search, detail) => {
      const reply = await call(at, "GET", `/search?${search}`);
      expect(expectError(reply, 400, Object.keys(detail))).toEqual(detail);
    });

    it("keeps `__proto__` and `constructor` as fields: no prototype is set or polluted", async () => {
      const reply = await call(at, "GET", "/meta?meta[__proto__]=polluted&meta[constructor]=c&meta[toString]=t");
      expect(reply.status, reply.text).toBe(200);
      expect(reply.text).toBe('{"query":{"meta":{"__proto__":"polluted","constructor":"c","toString":"t"}}}');
      const meta = (received.query as Json).meta as Json;
      expect(Object.getPrototypeOf(meta)).toBe(Object.prototype);
      expect(Object.hasOwn(meta, "__proto__")).toBe(true);
      expect(({} as Json).polluted).toBeUndefined();
    });

    it("refuses a `__proto__` object where a string is declared, naming the field", async () => {
      const reply = await call(at, "GET", "/meta?meta[__proto__][x]=1");
      expect(expectError(reply, 400, ["meta.__proto__"])).toEqual({ "meta.__proto__": "must be a string" });
      expect(({} as Json).x).toBeUndefined();
    });

    it("bounds nesting at 8 levels, and says so", async () => {
      const deep = (levels: number) => `/meta?meta${"[a]".repeat(levels)}=1`;
      // 8 levels are read (and then fail the schema); 9 are refused before anything is built.
      expect(expectError(await call(at, "GET", deep(8)), 400, ["meta.a"])).toEqual({ "meta.a": "must be a string" });
      expect(expectError(await call(at, "GET", deep(9)), 400, ["meta"])).toEqual({ meta: "must not nest fields more than 8 levels deep" });
      expect(expectError(await call(at, "GET", deep(2000)), 400, ["meta"])).toEqual({ meta: "must not nest fields more than 8 levels deep" });
    });

    it("takes a thousand keys, and a huge index sizes nothing", async () => {
      const keys = Array.from({ length: 1000 }, (_, i) => `meta[k${i}]=v`).join("&");
      const meta = (await query(`/meta?${keys}`)).meta as Json;
      expect(Object.keys(meta)).toHaveLength(1000);
      const reply = await call(at, "GET", "/search?filter[items][99999999][sku]=x");
      expect(expectError(reply, 400, ["filter.items"])).toEqual({ "filter.items": "must index its items from 0 without gaps ([0], [1], ...)" });
      // The test's time limit is the guard against a hang (no clock read here: the machine is shared).
    });

    it("answers 200 or 400 to 150 random hostile queries, and no prototype changes", async () => {
      const piece = fc.constantFrom("__proto__", "constructor", "prototype", "toString", "a", "0", "1", "", "[", "]", "%5B", "%", "=", "&");
      const key = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(""));
      const pair = fc.tuple(fc.constantFrom("filter", "meta", "q", "point", "offset", ""), key, fc.constantFrom("1", "x", "[]", "%7B%7D", ""));
      await fc.assert(
        fc.asyncProperty(fc.array(pair, { minLength: 1, maxLength: 8 }), async (pairs) => {
          const search = pairs.map(([name, rest, value]) => `${name}${rest}=${value}`).join("&");
          for (const target of [`/search?${search}`, `/meta?${search}`, `/free?${search}`]) {
            const reply = await call(at, "GET", target);
            expect([200, 400], `${target}: ${reply.text}`).toContain(reply.status);
          }
          expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTOTYPE_NAMES);
        }),
        { numRuns: 50 },
      );
    }, 60_000);

    it("refuses the parameter's name without brackets, saying how to give it", async () => {
      expect(expectError(await call(at, "GET", "/search?filter=lamp"), 400, ["filter"])).toEqual({
        filter: "must be given as its fields: filter[field]=value",
      });
    });

    it("is required when declared so", async () => {
      expect(expectError(await call(at, "GET", "/meta"), 400, ["meta"])).toEqual({ meta: "is required" });
    });
  });

  describe("form, pipeDelimited and spaceDelimited objects", () => {
    it("reads key,value pairs when not exploded", async () => {
      expect(await query("/search?point=x,1,y,2.5")).toEqual({ point: { x: 1, y: 2.5 } });
      expect(await query("/search?box=x|1|y|2")).toEqual({ box: { x: 1, y: 2 } });
      expect(await query("/search?span=x%201%20y%202")).toEqual({ span: { x: 1, y: 2 } });
      expect(await query("/search?span=x+1+y+2")).toEqual({ span: { x: 1, y: 2 } });
      // spaceDelimited arrays too: the delimiter arrives encoded (`%20` or `+`).
      expect(await query("/search?words=a+b%20c")).toEqual({ words: ["a", "b", "c"] });
    });

    it.each<[string, string, Json]>([
      ["an odd count of pieces", "point=x,1,y", { point: "must be written as keys and values in turn, separated by commas" }],
      ["a missing required field", "point=x,1", { "point.y": "is required" }],
      ["an undeclared field", "box=x|1|y|2|z|3", { "box.z": "is not a known field" }],
      ["a field of the wrong type", "point=x,a,y,2", { "point.x": "must be a number" }],
    ])("answers 400 for %s", async (_name, search, detail) => {
      expect(expectError(await call(at, "GET", `/search?${search}`), 400, Object.keys(detail))).toEqual(detail);
    });

    it("reads an exploded object's fields as query parameters of their own", async () => {
      expect(await query("/search?offset=3&count=10&limit=4")).toEqual({ page: { offset: 3, count: 10 }, limit: 4 });
      expect(expectError(await call(at, "GET", "/search?count=99"), 400, ["page.count"])).toEqual({ "page.count": "must be at most 50" });
      // Its own name and undeclared names are not query parameters (its schema declares its fields).
      const reply = await call(at, "GET", "/search?page=1&colour=red");
      expect(expectError(reply, 400, ["page", "colour"])).toEqual({ page: "is not a known query parameter", colour: "is not a known query parameter" });
    });

    it("gives an open exploded object (a map) every name no other parameter reads", async () => {
      expect(await query("/free?colour=red&size=big&sort=asc&__proto__=x")).toEqual(
        JSON.parse('{"params":{"colour":"red","size":"big","__proto__":"x"},"sort":"asc"}'),
      );
      expect(Object.getPrototypeOf((received.query as Json).params)).toBe(Object.prototype);
      expect(expectError(await call(at, "GET", "/free?colour=crimson"), 400, ["params.colour"])).toEqual({
        "params.colour": "must be at most 5 characters long",
      });
    });
  });

  describe("content: application/json", () => {
    it("parses the value as JSON and validates it against the schema", async () => {
      expect(await query(`/search?q=${encodeURIComponent('{"a":1}')}`)).toEqual({ q: { a: 1 } });
      expect(expectError(await call(at, "GET", "/search?q=nope"), 400, ["q"])).toEqual({ q: "must be valid JSON" });
      expect(expectError(await call(at, "GET", `/search?q=${encodeURIComponent('{"b":1}')}`), 400)).toEqual({
        "q.a": "is required",
        "q.b": "is not a known field",
      });
    });

    it("bounds the nesting of the JSON", async () => {
      const deep = encodeURIComponent(`${"[".repeat(40)}${"]".repeat(40)}`);
      expect(expectError(await call(at, "GET", `/search?q=${deep}`), 400, ["q"])).toEqual({ q: "must not nest arrays and objects more than 32 levels deep" });
    });
  });

  it("reads simple path objects, exploded and not", async () => {
    const reply = await call(at, "GET", "/points/x,1,y,2/x=3,y=4");
    expect(reply.status, reply.text).toBe(200);
    expect(obj(reply).path).toEqual({ p: { x: 1, y: 2 }, q: { x: 3, y: 4 } });
    expect(expectError(await call(at, "GET", "/points/x,1/x=3,y=4"), 400, ["p.y"])).toEqual({ "p.y": "is required" });
  });

  describe("headers and cookies", () => {
    const cookie = "prefs=theme,dark,size,3; ids=1; ids=2; tags=a,b%2Cc; cols=4; dark=true";

    it("reads simple header objects (exploded and not), a JSON header, cookie arrays and cookie objects", async () => {
      const reply = await call(at, "GET", "/headers", { headers: { "X-Dims": "x,1,y,2", "X-Pos": "x=3, y=4", "X-Json": '["a","b"]', Cookie: cookie } });
      expect(reply.status, reply.text).toBe(200);
      expect(obj(reply)).toEqual({
        headers: { "X-Dims": { x: 1, y: 2 }, "X-Pos": { x: 3, y: 4 }, "X-Json": ["a", "b"] },
        cookies: { prefs: { theme: "dark", size: 3 }, ids: [1, 2], tags: ["a", "b,c"], layout: { cols: 4, dark: true } },
      });
    });

    it.each<[string, Record<string, string>, Json]>([
      ["an exploded cookie array item of the wrong type", { Cookie: "ids=1; ids=x" }, { "ids[1]": "must be an integer" }],
      ["a header object without =", { "X-Pos": "x,3" }, { "X-Pos": "must be written as key=value pairs separated by commas" }],
      ["a cookie object field of the wrong type", { Cookie: "prefs=size,big" }, { "prefs.size": "must be an integer" }],
      ["an exploded cookie object field of the wrong type", { Cookie: "dark=maybe" }, { "layout.dark": "must be true or false" }],
      ["a JSON header that is not JSON", { "X-Json": "[a" }, { "X-Json": "must be valid JSON" }],
    ])("answers 400 for %s", async (_name, headers, detail) => {
      expect(expectError(await call(at, "GET", "/headers", { headers }), 400, Object.keys(detail))).toEqual(detail);
    });
  });
});

describe("the handler input's types", () => {
  const scratch = mkdtempSync(path.join(tmpdir(), "codegen-parameter-styles-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("types object parameters as their schemas, and compiles under the strict options", async () => {
    const result = await generateText(DOCUMENT);
    expect(result.diagnostics).toEqual([]);
    const files = result.value!;
    const search = files.find((file) => file.path === "operations/search.gen.ts")!.contents;
    expect(search).toContain("filter?: T.Filter;");
    expect(search).toContain("page?: { offset?: number; count?: number };");
    expect(search).toContain("q?: { a: number };");
    expect(search).toContain("cookies: {\n    prefs?: { theme?: string; size?: number };\n    ids?: number[];");
    // Assignments the types must take and refuse: a wrong type is a compile error (ts-expect-error fails when there is none).
    const check = [
      'import type { SearchInput, HeadersInput } from "./operations/search.gen.js";',
      'const filter: NonNullable<SearchInput["query"]["filter"]> = { items: [{ sku: "a", qty: 1 }], size: { min: 1 } };',
      "// @ts-expect-error qty is a number",
      'const wrong: NonNullable<SearchInput["query"]["filter"]> = { items: [{ sku: "a", qty: "1" }] };',
      'const cookies: HeadersInput["cookies"] = { ids: [1], layout: { dark: true } };',
      "export { filter, wrong, cookies };",
    ].join("\n");
    compileTrees([[...files, { path: "type-check.ts", contents: check }]], scratch);
  }, 60_000);
});

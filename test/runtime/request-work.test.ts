// The per-request work of the generated server: what each shortcut must keep
// meaning what the longer way meant (same values, same key order, own properties whatever their
// names), and the copies it no longer makes.
import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchRoute, routeOf } from "../../runtime/dispatch.gen.js";
import type { RouteSpec } from "../../runtime/dispatch.gen.js";
import { mediaType, parseUrl, readBody } from "../../runtime/http.gen.js";
import { readRequestBody } from "../../runtime/requests.gen.js";
import { MemoryCollection, copyOwn, etagOf, objectHref, prepareCreate, prepareOwnCreate, represent, representationText } from "../../runtime/resources.gen.js";
import type { ResourceSpec } from "../../runtime/resources.gen.js";
import { validateValue, withDefaults, withOwnDefaults } from "../../runtime/validate.gen.js";
import type { FieldErrors, SchemaTable } from "../../runtime/validate.gen.js";

const spec: ResourceSpec = {
  collection: "orders",
  singular: "order",
  idKind: "integer",
  readOnly: [],
  writeOnly: [],
  status: { initial: "draft", transitions: { draft: ["open"] } },
  refs: [],
  links: [],
};

describe("copyOwn", () => {
  it("copies own properties in order, a `__proto__` key as data, nothing inherited", () => {
    const source = JSON.parse('{"b":1,"__proto__":{"polluted":true},"a":2}') as { [key: string]: unknown };
    const copy = copyOwn(source);
    expect(Object.keys(copy)).toEqual(["b", "__proto__", "a"]);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value).toEqual({ polluted: true });
    copy.c = 3;
    expect(source).not.toHaveProperty("c");
  });
});

describe("withOwnDefaults", () => {
  const table: SchemaTable = {
    Order: {
      types: ["object"],
      properties: {
        name: { types: ["string"] },
        active: { types: ["boolean"], default: true },
        address: { types: ["object"], properties: { country: { types: ["string"], default: "NL" } } },
      },
    },
  };
  it("fills the caller's own object in place, with what withDefaults puts in a copy, in the same order", () => {
    const body = { address: { city: "Utrecht" }, name: "Ann" };
    const copied = withDefaults({ ref: "Order" }, body, table);
    const own = { ...body };
    const filled = withOwnDefaults({ ref: "Order" }, own, table);
    expect(filled).toBe(own);
    expect(JSON.stringify(filled)).toBe(JSON.stringify(copied));
    expect(JSON.stringify(filled)).toBe('{"address":{"city":"Utrecht","country":"NL"},"name":"Ann","active":true}');
    // The nested object is the client's: completed in a copy, as before.
    expect(body.address).toEqual({ city: "Utrecht" });
  });
});

describe("prepareOwnCreate", () => {
  it("sets the initial state in the caller's own object, where prepareCreate's copy has it", () => {
    const body = { name: "Ann", active: true };
    const own = { ...body };
    expect(prepareOwnCreate(spec, own)).toBe(own);
    expect(JSON.stringify(own)).toBe(JSON.stringify(prepareCreate(spec, body)));
    const { status: _status, ...stateless } = spec;
    const plain = { name: "Ann" };
    expect(prepareOwnCreate(stateless, plain)).toEqual({ name: "Ann" });
  });
});

describe("objectHref", () => {
  it("puts a safe integer in as its digits and encodes every other id", () => {
    expect(objectHref(spec, 42)).toBe("/orders/42");
    expect(objectHref(spec, -3)).toBe("/orders/-3");
    // Not a safe integer: its text `1e+21` has a `+`, which is encoded as before.
    expect(objectHref(spec, 1e21)).toBe("/orders/1e%2B21");
    expect(objectHref(spec, 1.5)).toBe("/orders/1.5");
    expect(objectHref(spec, "a/b c")).toBe("/orders/a%2Fb%20c");
    expect(objectHref({ ...spec, base: "/v1" }, 7)).toBe("/v1/orders/7");
  });
});

describe("validateValue on a reference at the root", () => {
  it("checks the referenced schema and reports every bad field, as before", () => {
    const table: SchemaTable = {
      Order: { types: ["object"], properties: { name: { types: ["string"] }, n: { types: ["integer"] } }, required: ["name"], additionalProperties: false },
    };
    const errors: FieldErrors = {};
    expect(validateValue({ ref: "Order" }, { n: "x", extra: 1 }, "", errors, table)).toBe(false);
    expect(errors).toEqual({ name: "is required", n: "must be an integer", extra: "is not a known field" });
    expect(validateValue({ ref: "Missing" }, 1, "", {}, table)).toBe(true);
  });
});

describe("minLength and maxLength", () => {
  it("count code points where the UTF-16 length alone cannot settle it, and nothing else", () => {
    const schema = { types: ["string" as const], minLength: 2, maxLength: 3 };
    const verdicts = [
      "a",
      "ab",
      "abc",
      "abcd",
      "\u{1F600}",
      "\u{1F600}\u{1F600}",
      "\u{1F600}\u{1F600}\u{1F600}",
      "\u{1F600}\u{1F600}\u{1F600}\u{1F600}",
      "\ud800",
      "\ud800\ud800",
    ].map((text) => {
      const errors: FieldErrors = {};
      validateValue(schema, text, "", errors, {});
      return errors.body ?? "valid";
    });
    expect(verdicts).toEqual([
      "must be at least 2 characters long",
      "valid",
      "valid",
      "must be at most 3 characters long",
      "must be at least 2 characters long",
      "valid",
      "valid",
      "must be at most 3 characters long",
      "must be at least 2 characters long",
      "valid",
    ]);
  });
});

describe("readBody", () => {
  it("answers a body that came in one chunk as that chunk, not a copy; several chunks joined", async () => {
    const one = Buffer.from('{"a":1}');
    const single = Object.assign(new PassThrough(), { headers: {} });
    single.end(one);
    const read = await readBody(single as unknown as IncomingMessage);
    expect(read.ok && read.body).toBe(one);
    const several = Object.assign(new PassThrough(), { headers: {} });
    several.write(Buffer.from('{"a"'));
    several.end(Buffer.from(":1}"));
    const joined = await readBody(several as unknown as IncomingMessage);
    expect(joined.ok && joined.body.toString()).toBe('{"a":1}');
  });
});

describe("readRequestBody", () => {
  it("hands a raw body over as a copy, never the view of the socket's buffer it came in", async () => {
    const chunk = Buffer.from("\u0001\u0002\u0003");
    const req = Object.assign(new PassThrough(), { headers: { "content-type": "application/octet-stream", "content-length": "3" } });
    req.end(chunk);
    const spec = { required: true, json: [], raw: ["application/octet-stream"] };
    const read = await readRequestBody(spec, req as unknown as IncomingMessage, {}, {});
    const bytes = read.ok ? read.rawBody?.bytes : undefined;
    expect([...(bytes ?? [])]).toEqual([1, 2, 3]);
    // A copy: what happens to the socket's buffer later does not reach the handler's bytes.
    chunk[0] = 9;
    expect(bytes?.[0]).toBe(1);
  });
});

describe("mediaType", () => {
  it("reads the usual JSON type as it is, and any other as before", () => {
    expect(mediaType("application/json")).toBe("application/json");
    expect(mediaType("Application/JSON; charset=utf-8")).toBe("application/json");
    expect(mediaType(" text/plain ")).toBe("text/plain");
  });
});

describe("routeOf", () => {
  const route = (segments: RouteSpec["segments"], name: string): RouteSpec => ({
    segments,
    methods: { GET: { operationId: name, kind: "operation", security: [], parameters: [], responses: {}, jsonOnly: true } },
  });
  const routes = [route(["files", null], "byId"), route(["files", ["", ".json"]], "asJson"), route(["files", "latest"], "latest"), route([], "index")];
  it("routes as matchRoute does on the segments as sent, with and without escapes", () => {
    for (const target of ["/files/latest", "/files/7", "/files/7.json", "/files/a%2Fb.json", "/files/%E2%82%AC", "/"]) {
      const parsed = parseUrl(target);
      if (!parsed.ok) throw new Error(target);
      const raw = parsed.value.path === "/" ? [] : parsed.value.path.slice(1).split("/");
      const routed = routeOf(routes, parsed.value, "GET");
      const matched = matchRoute(routes, parsed.value.segments, "GET", raw);
      expect(routed, target).toEqual(matched);
      expect(routed, target).toBeDefined();
    }
    expect(routeOf(routes, (parseUrl("/files/7/x") as { value: Parameters<typeof routeOf>[1] }).value, "GET")).toBeUndefined();
  });
});

describe("representationText", () => {
  // Keys a stored object may have, whatever the client or the handler called them.
  const key = fc.oneof(fc.constantFrom("id", "name", "status", "links", "__proto__", "toJSON", "constructor", "2", "10", "é"), fc.string({ maxLength: 4 }));
  const value = fc.jsonValue({ maxDepth: 2 });
  const object = fc
    .tuple(fc.oneof(fc.integer({ min: 1 }), fc.string({ minLength: 1, maxLength: 5 })), fc.array(fc.tuple(key, value), { maxLength: 8 }))
    .map(([id, entries]) => {
      const record: { [key: string]: unknown } = {};
      // (The id is the store's, a number or a string: an entry never replaces it.)
      for (const [name, item] of [["id", id] as const, ...entries.filter(([name]) => name !== "id")])
        Object.defineProperty(record, name, { value: item, enumerable: true, writable: true, configurable: true });
      return record;
    });
  const specs = fc.record({
    writeOnly: fc.constantFrom([], ["name"]),
    base: fc.constantFrom(undefined, "/v1"),
    links: fc.constantFrom([], [{ rel: "edit", method: "PATCH", when: ["draft"] }], [{ rel: "approve", method: "POST", action: "approve" }]),
  });

  it("is represent's JSON, or undefined; a kept object's text the same after its first time", () => {
    fc.assert(
      fc.property(specs, object, (parts, record) => {
        const shape: ResourceSpec = { ...spec, writeOnly: parts.writeOnly, links: parts.links, ...(parts.base === undefined ? {} : { base: parts.base }) };
        const text = representationText(shape, record);
        // Where the object's own JSON could differ from its representation's, there is no text.
        if (parts.writeOnly.length > 0 || Object.hasOwn(record, "links") || "toJSON" in record) expect(text).toBeUndefined();
        else expect(text).toBe(JSON.stringify(represent(shape, record)));
      }),
    );
  });

  it("writes a stored object's fields once across its reads, and its links each time; keeps nothing for a write's answer", () => {
    const orders = new MemoryCollection({ ...spec, links: [{ rel: "edit", method: "PATCH", when: ["draft"] }] });
    const stored = orders.create({ name: "Widget", tags: ["a", "b"], status: "draft" });
    if ("status" in stored && typeof stored.status === "number") throw new Error("refused");
    const shape = { ...spec, links: [{ rel: "edit", method: "PATCH", when: ["draft"] }] };
    const expected = JSON.stringify(represent(shape, stored));
    // Counted: how often JSON.stringify is given the object itself.
    const given: unknown[] = [];
    const stringify = JSON.stringify;
    JSON.stringify = ((value: unknown, ...rest: []) => (given.push(value), stringify(value, ...rest))) as typeof JSON.stringify;
    const written = (): number => given.filter((item) => item === stored).length;
    try {
      // The create's answer: written, not kept (each object is shown so once; most are never read).
      expect(representationText(shape, stored)).toBe(expected);
      expect(representationText(shape, stored)).toBe(expected);
      expect(written()).toBe(2);
      // Its reads: written at the first, kept for the others, whatever the base path.
      expect(representationText(shape, stored, true)).toBe(expected);
      expect(representationText(shape, stored, true)).toBe(expected);
      expect(representationText({ ...shape, base: "/v1" }, stored, true)).toBe(stringify(represent({ ...shape, base: "/v1" }, stored)));
      expect(written()).toBe(3);
    } finally {
      JSON.stringify = stringify;
    }
    // The ETag made when the object was stored is the digest of its fields, as for any other object.
    expect(etagOf(stored)).toBe(etagOf({ ...stored }));
  });
});

// Request validation over HTTP: nested fields and array items named by path (`nested`
// fixture), formats, path ids of every kind, read-only fields and links per state (`no-auth`),
// and the `uri` format (`guard-authorization-code`) (http-behaviour "Requests", "Errors").
// The no-auth library's server URL has the path /api: its routes and links are under it.

import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/serve/serve.js";
import { startFixtureServer } from "../support/generated.js";
import { START_TIMEOUT, call, expectError, issueToken, list, obj } from "./support.js";
import type { Json } from "./support.js";

const photographer = { name: "pat", password: "pw", scopes: ["photos:read", "photos:write"] };
let nested: RunningServer;
let library: RunningServer;
let photos: RunningServer;
let photoToken = "";

beforeAll(async () => {
  [nested, library, photos] = await Promise.all([
    startFixtureServer("nested"),
    startFixtureServer("no-auth"),
    startFixtureServer("guard-authorization-code", [photographer]),
  ]);
  photoToken = await issueToken(photos.url, photographer, ["photos:write"]);
}, START_TIMEOUT);
afterAll(async () => {
  await Promise.all([nested?.close(), library?.close(), photos?.close()]);
});

/** A new book of the no-auth library: its id, for loans' `bookId` (a ref must name an existing book). */
async function newBook(): Promise<string> {
  return String(obj(await call(`${library.url}/api`, "POST", "/books", { json: { title: "T" } })).id);
}

const customer = (): Json => ({
  name: "Ada",
  address: { street: "1 Main St", city: "Springfield", geo: { lat: 45.5, lon: -122.6 } },
  phones: ["+1 555 0100", "555 0199"],
  orders: [{ sku: "A-1", quantity: 2, tags: ["gift"] }, { sku: "B-2" }],
  scores: [1, 2.5],
});

describe("nested objects and arrays (nested fixture)", () => {
  const post = (body: unknown) => call(nested.url, "POST", "/customers", { json: body });

  it("a valid customer is created whole, with the defaults at every depth", async () => {
    const reply = await post(customer());
    expect(reply.status, reply.text).toBe(201);
    const created = obj(reply);
    // `vip` defaults to false at the top; `orders[].quantity` defaults to 1 inside the array.
    const orders = [
      { sku: "A-1", quantity: 2, tags: ["gift"] },
      { sku: "B-2", quantity: 1 },
    ];
    expect(created).toEqual({
      ...customer(),
      orders,
      id: created.id,
      vip: false,
      links: [{ rel: "self", method: "GET", href: `/customers/${String(created.id)}` }],
    });
    expect((await call(nested.url, "GET", `/customers/${String(created.id)}`)).body).toEqual(created);
  });

  it.each([
    ["a nested field too short", { address: { street: "s", city: "" } }, ["address.city"]],
    ["a nested required field missing", { address: { street: "s" } }, ["address.city"]],
    ["two nested required fields missing", { address: {} }, ["address.street", "address.city"]],
    ["a nested field of the wrong type", { address: { street: 5, city: "c" } }, ["address.street"]],
    ["an undeclared nested field", { address: { street: "s", city: "c", zip: "12345" } }, ["address.zip"]],
    ["two levels down, out of range", { address: { street: "s", city: "c", geo: { lat: 91, lon: 0 } } }, ["address.geo.lat"]],
    ["two levels down, missing", { address: { street: "s", city: "c", geo: { lat: 1 } } }, ["address.geo.lon"]],
    ["an array item against its pattern", { phones: ["+1 555", "call me"] }, ["phones[1]"]],
    ["an array item of the wrong type", { phones: ["123", 456] }, ["phones[1]"]],
    ["an array too long", { phones: ["1", "2", "3", "4", "5", "6"] }, ["phones"]],
    ["an array that is not one", { phones: "123" }, ["phones"]],
    ["an object in an array, below its minimum", { orders: [{ sku: "a", quantity: 0 }] }, ["orders[0].quantity"]],
    ["an object in an array, not an integer", { orders: [{ sku: "a" }, { sku: "b", quantity: 1.5 }] }, ["orders[1].quantity"]],
    ["an object in an array, missing a field", { orders: [{ quantity: 1 }] }, ["orders[0].sku"]],
    ["an array in an object in an array", { orders: [{ sku: "a" }, { sku: "b", tags: ["x", 1] }] }, ["orders[1].tags[1]"]],
    ["an undeclared field in an array item", { orders: [{ sku: "a", note: "n" }] }, ["orders[0].note"]],
    ["an array item that is not an object", { orders: ["a"] }, ["orders[0]"]],
    ["a number array item", { scores: [1, "2"] }, ["scores[1]"]],
    ["a required nested object missing", { address: undefined }, ["address"]],
    ["null on a required nested object", { address: null }, ["address"]],
  ] as const)("%s: 400 naming %j", async (_, change, fields) => {
    const body: Json = { ...customer(), ...change };
    const reply = await post(JSON.parse(JSON.stringify(body)));
    expectError(reply, 400, fields);
  });

  it("names every bad field at once, each by its path", async () => {
    const body = {
      name: 3,
      address: { street: "s", city: "", geo: { lat: 0, lon: 200 } },
      phones: ["x"],
      orders: [{ sku: "a" }, { sku: "b", quantity: -1 }],
      scores: [true],
    };
    expectError(await post(body), 400, ["name", "address.city", "address.geo.lon", "phones[0]", "orders[1].quantity", "scores[0]"]);
  });

  it("a nullable nested object may hold null; absent optional arrays stay absent", async () => {
    const reply = await post({ name: "N", address: { street: "s", city: "c", geo: null } });
    expect(reply.status, reply.text).toBe(201);
    const created = obj(reply);
    expect(created.address).toEqual({ street: "s", city: "c", geo: null });
    for (const field of ["phones", "orders", "scores"]) expect(Object.hasOwn(created, field), field).toBe(false);
  });

  it("PUT and PATCH validate nested fields the same way", async () => {
    const created = obj(await post(customer()));
    const href = `/customers/${String(created.id)}`;
    expectError(await call(nested.url, "PUT", href, { json: { ...customer(), orders: [{ sku: "a", quantity: 0 }] } }), 400, ["orders[0].quantity"]);
    expectError(await call(nested.url, "PATCH", href, { json: { address: { street: "s", city: "" } } }), 400, ["address.city"]);
    expectError(await call(nested.url, "PATCH", href, { json: { phones: ["ok", "555"] } }), 400, ["phones[0]"]);
    const patched = await call(nested.url, "PATCH", href, { json: { phones: null, address: { street: "2 Elm", city: "Shelbyville" } } });
    expect(patched.status, patched.text).toBe(200);
    // A JSON merge patch (RFC 7396) merges a nested object: `geo`, which the patch leaves out, stays.
    expect(obj(patched).address).toEqual({ street: "2 Elm", city: "Shelbyville", geo: { lat: 45.5, lon: -122.6 } });
    expect(Object.hasOwn(obj(patched), "phones")).toBe(false);
  });

  it("a number past a double's range (1e400) is a validation error naming it, never stored as null", async () => {
    const text = JSON.stringify({ ...customer(), scores: [1, 2] })
      .replace("[1,2]", "[1,-1e400]")
      .replace('"lat":45.5', '"lat":1e999');
    expectError(await call(nested.url, "POST", "/customers", { body: text, headers: { "Content-Type": "application/json" } }), 400, [
      "scores[1]",
      "address.geo.lat",
    ]);
    const small = await call(nested.url, "POST", "/customers", {
      body: text.replace("-1e400", "1e-400").replace("1e999", "45"),
      headers: { "Content-Type": "application/json" },
    });
    expect([small.status, obj(small).scores]).toEqual([201, [1, 0]]);
  });

  it("?vip filters; a bad value names it", async () => {
    const vip = obj(await post({ ...customer(), vip: true }));
    const found = list(await call(nested.url, "GET", "/customers?vip=true"));
    expect(found.map((c) => c.id)).toContain(vip.id);
    for (const c of found) expect(c.vip).toBe(true);
    expectError(await call(nested.url, "GET", "/customers?vip=no"), 400, ["vip"]);
    expectError(await call(nested.url, "GET", "/customers?name=Ada"), 400, ["name"]);
  });
});

describe("formats (no-auth and guard-authorization-code fixtures)", () => {
  const uuid = randomUUID();
  const loan = (change: Json): Json => ({ bookId: uuid, reader: "r@example.com", ...change });

  it.each([
    ["uuid", { bookId: "1234" }, "bookId"],
    ["uuid, one digit short", { bookId: uuid.slice(0, -1) }, "bookId"],
    ["email", { reader: "reader" }, "reader"],
    ["email with a space", { reader: "a b@example.com" }, "reader"],
    ["date-time without a zone", { due: "2024-05-01T10:00:00" }, "due"],
    ["date-time with a space", { due: "2024-05-01 10:00:00Z" }, "due"],
    ["date-time, month 13", { due: "2024-13-01T10:00:00Z" }, "due"],
    ["date-time, 30 February", { due: "2024-02-30T10:00:00Z" }, "due"],
    ["date-time, hour 24", { due: "2024-05-01T24:00:00Z" }, "due"],
    ["date-time, a date only", { due: "2024-05-01" }, "due"],
  ])("loans: a bad %s is refused naming %s", async (_, change, field) => {
    expectError(await call(`${library.url}/api`, "POST", "/loans", { json: loan(change) }), 400, [field]);
  });

  it("loans: valid uuid, email and date-time formats pass", async () => {
    const bookId = await newBook();
    for (const due of ["2024-02-29T23:59:59Z", "2024-05-01T10:00:00.123+02:00", "2024-05-01t10:00:00z"]) {
      const reply = await call(`${library.url}/api`, "POST", "/loans", { json: loan({ due, bookId }) });
      expect(reply.status, `${due}: ${reply.text}`).toBe(201);
    }
    // An upper-case uuid passes the format; it names no book (ids are compared as stored), so the reference check refuses it.
    const upper = bookId.toUpperCase();
    const detail = expectError(await call(`${library.url}/api`, "POST", "/loans", { json: loan({ bookId: upper }) }), 400, ["bookId"]);
    expect(detail.bookId).toBe(`no book has the id ${upper}`);
  });

  it.each([
    ["2023-02-29", false],
    ["2024-02-29", true],
    ["2024-1-01", false],
    ["2024-01-01T00:00:00Z", false],
    ["01/02/2024", false],
  ])("books: date %s valid: %s", async (published, valid) => {
    const reply = await call(`${library.url}/api`, "POST", "/books", { json: { title: "T", published } });
    if (valid) expect(reply.status, reply.text).toBe(201);
    else expectError(reply, 400, ["published"]);
  });

  it("books: pattern, enum, minimum and minLength are checked together", async () => {
    expectError(await call(`${library.url}/api`, "POST", "/books", { json: { title: "", isbn: "abc", genre: "poetry", pages: 0 } }), 400, [
      "title",
      "isbn",
      "genre",
      "pages",
    ]);
  });

  it.each([
    ["not a uri", false],
    ["/relative/path", false],
    ["https://photos.example.com/p/1.jpg", true],
    ["urn:isbn:0451450523", true],
  ])("photos: uri %s valid: %s", async (url, valid) => {
    const reply = await call(photos.url, "POST", "/photos", { json: { url }, token: photoToken });
    if (valid) expect(reply.status, reply.text).toBe(201);
    else expectError(reply, 400, ["url"]);
  });

  it("photos: a nullable field with maxLength", async () => {
    const ok = await call(photos.url, "POST", "/photos", { json: { url: "https://x.example/1", caption: null }, token: photoToken });
    expect(ok.status, ok.text).toBe(201);
    expect(obj(ok).caption).toBeNull();
    expectError(await call(photos.url, "POST", "/photos", { json: { url: "https://x.example/1", caption: "c".repeat(281) }, token: photoToken }), 400, [
      "caption",
    ]);
  });
});

describe("path ids of every kind (no-auth fixture)", () => {
  it("integer ids: not an integer or below 1 is a validation error on id; unknown is 404", async () => {
    for (const id of ["abc", "0", "-1", "1.5", "1e3"]) expectError(await call(`${library.url}/api`, "GET", `/loans/${id}`), 400, ["id"]);
    expectError(await call(`${library.url}/api`, "GET", "/loans/999999"), 404, ["id"]);
  });

  it("uuid ids: the server assigns a uuid; a malformed one is 400, an unknown one 404", async () => {
    const created = obj(await call(`${library.url}/api`, "POST", "/books", { json: { title: "Dune" } }));
    expect(created.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect((await call(`${library.url}/api`, "GET", `/books/${String(created.id)}`)).status).toBe(200);
    expectError(await call(`${library.url}/api`, "GET", "/books/12345"), 400, ["id"]);
    expectError(await call(`${library.url}/api`, "GET", `/books/${randomUUID()}`), 404, ["id"]);
  });

  it("string ids: the server assigns one; any text is a valid id; percent-encoding is decoded", async () => {
    const reply = await call(`${library.url}/api`, "POST", "/shelves", { json: { label: "A1" } });
    expect(reply.status).toBe(201);
    const shelf = obj(reply);
    expect(typeof shelf.id).toBe("string");
    expect(reply.headers.get("location")).toBe(`/api/shelves/${String(shelf.id)}`);
    expectError(await call(`${library.url}/api`, "GET", "/shelves/no%20such%20shelf"), 404, ["id"]);
    expectError(await call(`${library.url}/api`, "POST", "/shelves", { json: { label: "a1" } }), 400, ["label"]);
  });

  it("a resource with a subset of operations answers 405 with Allow for the others", async () => {
    const book = obj(await call(`${library.url}/api`, "POST", "/books", { json: { title: "T" } }));
    const reply = await call(`${library.url}/api`, "PUT", `/books/${String(book.id)}`, { json: { title: "U" } });
    expectError(reply, 405);
    expect(reply.headers.get("allow")).toBe("GET, DELETE, HEAD, OPTIONS");
    const patch = await call(`${library.url}/api`, "PATCH", "/books", { json: {} });
    expectError(patch, 405);
    expect(patch.headers.get("allow")).toBe("GET, POST, HEAD, OPTIONS");
  });
});

describe("read-only fields, refs and links per state (no-auth loans)", () => {
  it("a read-only field is ignored in POST, PUT and PATCH, and always in responses", async () => {
    const bookId = await newBook();
    const created = obj(await call(`${library.url}/api`, "POST", "/loans", { json: { bookId, reader: "r@example.com", overdue: true } }));
    expect(created.overdue).toBe(false);
    const href = `/api/loans/${String(created.id)}`;
    const put = await call(library.url, "PUT", href, { json: { bookId, reader: "s@example.com", overdue: true } });
    expect(put.status, put.text).toBe(200);
    expect(obj(put)).toMatchObject({ reader: "s@example.com", overdue: false });
    const patch = await call(library.url, "PATCH", href, { json: { overdue: "not even a boolean" } });
    expect(patch.status, patch.text).toBe(200);
    expect(obj(patch).overdue).toBe(false);
    expect(obj(await call(library.url, "GET", href)).overdue).toBe(false);
  });

  it("links: self, the ref to its book, then return (open, lost) and remove (every state)", async () => {
    const bookId = await newBook();
    const created = obj(await call(`${library.url}/api`, "POST", "/loans", { json: { bookId, reader: "r@example.com", status: "returned" } }));
    const href = `/api/loans/${String(created.id)}`;
    const self = { rel: "self", method: "GET", href };
    const book = { rel: "book", method: "GET", href: `/api/books/${bookId}` };
    const back = { rel: "return", method: "PATCH", href };
    const remove = { rel: "remove", method: "DELETE", href };
    expect(created.status).toBe("open");
    expect(created.links).toEqual([self, book, back, remove]);
    const lost = obj(await call(library.url, "PATCH", href, { json: { status: "lost" } }));
    expect(lost.links).toEqual([self, book, back, remove]);
    const returned = obj(await call(library.url, "PATCH", href, { json: { status: "returned" } }));
    expect(returned.links).toEqual([self, book, remove]);
    expectError(await call(library.url, "PATCH", href, { json: { status: "open" } }), 409, ["status"]);
    expect((await call(library.url, "DELETE", href)).status).toBe(204);
  });

  it("filters on a uuid ref, a read-only boolean and status; bad values are named", async () => {
    const bookId = await newBook();
    const created = obj(await call(`${library.url}/api`, "POST", "/loans", { json: { bookId, reader: "f@example.com" } }));
    const found = list(await call(`${library.url}/api`, "GET", `/loans?bookId=${bookId}&overdue=false&status=open`));
    expect(found.map((l) => l.id)).toEqual([created.id]);
    expectError(await call(`${library.url}/api`, "GET", "/loans?bookId=nope&status=closed&overdue=0"), 400, ["bookId", "status", "overdue"]);
    expectError(await call(`${library.url}/api`, "GET", "/books?genre=poetry&isbn=abc"), 400, ["genre", "isbn"]);
  });
});

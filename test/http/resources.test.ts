// The blog fixture's resources over HTTP: CRUD round trips, PUT and PATCH semantics, fields a
// client may send back, filters, links per state and the status machine (http-behaviour
// "Operations", "Requests").

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/serve/serve.js";
import { startFixtureServer } from "../support/generated.js";
import { START_TIMEOUT, call, expectError, issueToken, list, obj } from "./support.js";
import type { Json } from "./support.js";

const admin = { name: "ann", password: "secret", scopes: ["articles:read", "articles:write", "authors:write"] };
let server: RunningServer;
let base = "";
let token = "";

beforeAll(async () => {
  server = await startFixtureServer("blog", [admin]);
  base = server.url;
  token = await issueToken(base, admin, ["articles:write", "authors:write"], "/token");
}, START_TIMEOUT);
afterAll(() => server?.close());

async function createArticle(body: Json): Promise<Json> {
  const reply = await call(base, "POST", "/articles", { json: body, token });
  expect(reply.status, reply.text).toBe(201);
  return obj(reply);
}

async function createAuthor(name = "Ada"): Promise<Json> {
  const reply = await call(base, "POST", "/authors", { json: { name, email: "ada@example.com" }, token });
  expect(reply.status, reply.text).toBe(201);
  return obj(reply);
}

const selfLink = (id: unknown) => ({ rel: "self", method: "GET", href: `/articles/${String(id)}` });
const editLink = (id: unknown) => ({ rel: "edit", method: "PATCH", href: `/articles/${String(id)}` });
const cancelLink = (id: unknown) => ({ rel: "cancel", method: "DELETE", href: `/articles/${String(id)}` });

describe("the index", () => {
  it("GET / lists every collection, then the token endpoint, then the served document and its page", async () => {
    const reply = await call(base, "GET", "/");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      links: [
        { rel: "authors", method: "GET", href: "/authors" },
        { rel: "articles", method: "GET", href: "/articles" },
        { rel: "token", method: "POST", href: "/token" },
        { rel: "service-desc", method: "GET", href: "/openapi.json" },
        { rel: "service-doc", method: "GET", href: "/docs" },
      ],
    });
  });
});

describe("CRUD round trips", () => {
  it("articles: 201 with Location, 200 on read, 204 on delete, then 404", async () => {
    const created = await call(base, "POST", "/articles", { json: { title: "Hello", body: "Text", tags: ["a", "b"], rating: 4.5 }, token });
    expect(created.status).toBe(201);
    const article = obj(created);
    expect(typeof article.id).toBe("number");
    expect(created.headers.get("location")).toBe(`/articles/${String(article.id)}`);
    expect(article).toEqual({
      id: article.id,
      title: "Hello",
      body: "Text",
      tags: ["a", "b"],
      rating: 4.5,
      published: false,
      status: "draft",
      links: [selfLink(article.id), editLink(article.id), cancelLink(article.id)],
    });

    const read = await call(base, "GET", `/articles/${String(article.id)}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(article);
    const all = await call(base, "GET", "/articles");
    expect(all.status).toBe(200);
    expect(list(all)).toContainEqual(article);

    const deleted = await call(base, "DELETE", `/articles/${String(article.id)}`, { token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expect(deleted.headers.get("content-type")).toBeNull();
    const gone = await call(base, "GET", `/articles/${String(article.id)}`);
    expect(expectError(gone, 404, ["id"]).id).toContain(String(article.id));
    expectError(await call(base, "DELETE", `/articles/${String(article.id)}`, { token }), 404, ["id"]);
    expect(list(await call(base, "GET", "/articles")).map((a) => a.id)).not.toContain(article.id);
  });

  it("authors: create, read, replace, update, delete", async () => {
    const created = await call(base, "POST", "/authors", { json: { name: "Grace", email: "grace@example.com" }, token });
    expect(created.status).toBe(201);
    const author = obj(created);
    const href = `/authors/${String(author.id)}`;
    expect(created.headers.get("location")).toBe(href);
    expect(author).toEqual({ id: author.id, name: "Grace", email: "grace@example.com", links: [{ rel: "self", method: "GET", href }] });
    expect((await call(base, "GET", href)).body).toEqual(author);

    const replaced = await call(base, "PUT", href, { json: { name: "Grace H", email: "gh@example.com" }, token });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({ ...author, name: "Grace H", email: "gh@example.com" });
    const updated = await call(base, "PATCH", href, { json: { name: "G. Hopper" }, token });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ...author, name: "G. Hopper", email: "gh@example.com" });
    expect((await call(base, "GET", href)).body).toEqual(updated.body);

    expect((await call(base, "DELETE", href, { token })).status).toBe(204);
    expectError(await call(base, "GET", href), 404, ["id"]);
  });

  it("ids are assigned by the server, one after another", async () => {
    const first = await createAuthor("One");
    const second = await createAuthor("Two");
    expect(second.id).toBe((first.id as number) + 1);
  });

  it("404 on every operation of an unknown id, naming id", async () => {
    for (const method of ["GET", "PUT", "PATCH", "DELETE"]) {
      const json = method === "PUT" ? { title: "x" } : method === "PATCH" ? {} : undefined;
      const reply = await call(base, method, "/articles/99999", { token, ...(json ? { json } : {}) });
      expect(expectError(reply, 404, ["id"]).id, method).toContain("99999");
    }
  });
});

describe("PUT replaces the whole object", () => {
  it("clears absent optional fields (and applies no default)", async () => {
    const author = await createAuthor();
    const article = await createArticle({ title: "Full", body: "B", tags: ["x"], rating: 3, authorId: author.id, published: true });
    const reply = await call(base, "PUT", `/articles/${String(article.id)}`, { json: { title: "Bare" }, token });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ id: article.id, title: "Bare", status: "draft", links: [selfLink(article.id), editLink(article.id), cancelLink(article.id)] });
    expect((await call(base, "GET", `/articles/${String(article.id)}`)).body).toEqual(reply.body);
  });

  it("without a required field is a validation error naming it", async () => {
    const article = await createArticle({ title: "T" });
    expectError(await call(base, "PUT", `/articles/${String(article.id)}`, { json: { body: "no title" }, token }), 400, ["title"]);
    const author = await createAuthor();
    expectError(await call(base, "PUT", `/authors/${String(author.id)}`, { json: { name: "N" }, token }), 400, ["email"]);
  });

  it("a nullable field may hold null when sent so in POST or PUT", async () => {
    const article = await createArticle({ title: "N", rating: null });
    expect(article.rating).toBeNull();
    const replaced = await call(base, "PUT", `/articles/${String(article.id)}`, { json: { title: "N", rating: null }, token });
    expect(obj(replaced).rating).toBeNull();
    expect(obj(await call(base, "GET", `/articles/${String(article.id)}`)).rating).toBeNull();
  });

  it("null on a required field is a validation error (POST, PUT, PATCH)", async () => {
    expectError(await call(base, "POST", "/articles", { json: { title: null }, token }), 400, ["title"]);
    const article = await createArticle({ title: "R" });
    expectError(await call(base, "PUT", `/articles/${String(article.id)}`, { json: { title: null }, token }), 400, ["title"]);
    expectError(await call(base, "PATCH", `/articles/${String(article.id)}`, { json: { title: null }, token }), 400, ["title"]);
    expect(obj(await call(base, "GET", `/articles/${String(article.id)}`)).title).toBe("R");
  });
});

describe("PATCH merges", () => {
  it("changes only the given fields and answers the complete object", async () => {
    const article = await createArticle({ title: "Old", body: "Keep", tags: ["t"] });
    const reply = await call(base, "PATCH", `/articles/${String(article.id)}`, { json: { title: "New" }, token });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ...article, title: "New" });
  });

  it("null clears an optional field, which is then absent from later responses", async () => {
    const article = await createArticle({ title: "C", body: "gone soon", rating: 2, tags: ["x"] });
    const reply = await call(base, "PATCH", `/articles/${String(article.id)}`, { json: { body: null, rating: null, tags: null }, token });
    expect(reply.status).toBe(200);
    const patched = obj(reply);
    for (const field of ["body", "rating", "tags"]) expect(Object.hasOwn(patched, field), field).toBe(false);
    const read = obj(await call(base, "GET", `/articles/${String(article.id)}`));
    for (const field of ["body", "rating", "tags"]) expect(Object.hasOwn(read, field), field).toBe(false);
    expect(read.title).toBe("C");
  });

  it("accepts application/merge-patch+json (with parameters, any case) as well as application/json", async () => {
    const article = await createArticle({ title: "M" });
    for (const [contentType, title] of [
      ["application/merge-patch+json", "M1"],
      ["Application/Merge-Patch+JSON; charset=utf-8", "M2"],
      ["application/json; charset=utf-8", "M3"],
    ] as const) {
      const reply = await call(base, "PATCH", `/articles/${String(article.id)}`, {
        body: JSON.stringify({ title }),
        headers: { "Content-Type": contentType },
        token,
      });
      expect(reply.status, contentType).toBe(200);
      expect(obj(reply).title).toBe(title);
    }
  });

  it("merge-patch+json is a PATCH type only: POST and PUT answer 415", async () => {
    const headers = { "Content-Type": "application/merge-patch+json" };
    expectError(await call(base, "POST", "/articles", { body: JSON.stringify({ title: "x" }), headers, token }), 415);
    const article = await createArticle({ title: "P" });
    expectError(await call(base, "PUT", `/articles/${String(article.id)}`, { body: JSON.stringify({ title: "x" }), headers, token }), 415);
  });

  it("an empty patch changes nothing", async () => {
    const article = await createArticle({ title: "E", body: "b" });
    const reply = await call(base, "PATCH", `/articles/${String(article.id)}`, { json: {}, token });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(article);
  });
});

describe("fields a client may send back", () => {
  it("id and links in a create body are ignored", async () => {
    const sent = { id: 4242, links: [{ rel: "self", method: "GET", href: "/articles/4242" }], title: "Echo" };
    const article = await createArticle(sent);
    expect(article.id).not.toBe(4242);
    expect(article.links).toEqual([selfLink(article.id), editLink(article.id), cancelLink(article.id)]);
    expectError(await call(base, "GET", "/articles/4242"), 404, ["id"]);
  });

  it("a whole response body may be sent back with PUT and PATCH", async () => {
    const article = await createArticle({ title: "Round", body: "trip" });
    const put = await call(base, "PUT", `/articles/${String(article.id)}`, { json: { ...article, title: "Round 2" }, token });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toEqual({ ...article, title: "Round 2" });
    const patch = await call(base, "PATCH", `/articles/${String(article.id)}`, { json: { ...obj(put), title: "Round 3" }, token });
    expect(patch.status, patch.text).toBe(200);
    expect(patch.body).toEqual({ ...article, title: "Round 3" });
  });

  it("links are ignored even when they are not valid links", async () => {
    const article = await createArticle({ title: "L", links: "not an array" });
    expect(article.links).toEqual([selfLink(article.id), editLink(article.id), cancelLink(article.id)]);
  });

  it("an id that differs from the path: 400 naming id (PUT and PATCH), nothing changed", async () => {
    const article = await createArticle({ title: "Mine" });
    const other = (article.id as number) + 1000;
    expectError(await call(base, "PUT", `/articles/${String(article.id)}`, { json: { id: other, title: "Theirs" }, token }), 400, ["id"]);
    expectError(await call(base, "PATCH", `/articles/${String(article.id)}`, { json: { id: other, title: "Theirs" }, token }), 400, ["id"]);
    expectError(await call(base, "PATCH", `/articles/${String(article.id)}`, { json: { id: null }, token }), 400, ["id"]);
    expect(obj(await call(base, "GET", `/articles/${String(article.id)}`)).title).toBe("Mine");
    const same = await call(base, "PATCH", `/articles/${String(article.id)}`, { json: { id: article.id, title: "Still mine" }, token });
    expect(same.status).toBe(200);
    expect(obj(same).id).toBe(article.id);
  });

  it("an undeclared field: 400 naming it, on create, replace and update", async () => {
    expect(expectError(await call(base, "POST", "/articles", { json: { title: "x", colour: "red" }, token }), 400, ["colour"]).colour).toBeTruthy();
    const article = await createArticle({ title: "U" });
    expectError(await call(base, "PUT", `/articles/${String(article.id)}`, { json: { title: "x", colour: "red" }, token }), 400, ["colour"]);
    expectError(await call(base, "PATCH", `/articles/${String(article.id)}`, { json: { colour: "red", size: 3 }, token }), 400, ["colour", "size"]);
    expectError(await call(base, "POST", "/authors", { json: { name: "x", email: "x@example.com", title: "Dr" }, token }), 400, ["title"]);
  });

  it("every bad field is named at once", async () => {
    const detail = expectError(
      await call(base, "POST", "/articles", { json: { title: "t".repeat(201), published: "yes", rating: 7, tags: ["ok", 3], authorId: 1.5 }, token }),
      400,
      ["title", "published", "rating", "tags[1]", "authorId"],
    );
    expect(detail.rating).toMatch(/5/);
  });

  it("a body that is not an object: 400", async () => {
    for (const json of [[], "text", 3, null]) {
      const reply = await call(base, "POST", "/articles", { body: JSON.stringify(json), headers: { "Content-Type": "application/json" }, token });
      expectError(reply, 400, ["body"]);
    }
  });

  it("the author's email format is checked", async () => {
    expectError(await call(base, "POST", "/authors", { json: { name: "x", email: "not-an-email" }, token }), 400, ["email"]);
    expectError(await call(base, "POST", "/authors", { json: { name: "", email: "x@example.com" }, token }), 400, ["name"]);
  });
});

describe("filters", () => {
  it("?published, ?authorId and ?status select, and combine with AND", async () => {
    const author = await createAuthor("Filtered");
    const other = await createAuthor("Other");
    const a = await createArticle({ title: "a", authorId: author.id, published: true });
    const b = await createArticle({ title: "b", authorId: author.id });
    const c = await createArticle({ title: "c", authorId: other.id, published: true });
    await call(base, "PATCH", `/articles/${String(b.id)}`, { json: { status: "review" }, token });
    const ids = async (query: string): Promise<unknown[]> => {
      const reply = await call(base, "GET", `/articles?${query}`);
      expect(reply.status, reply.text).toBe(200);
      return list(reply).map((x) => x.id);
    };
    expect(await ids(`authorId=${String(author.id)}`)).toEqual([a.id, b.id]);
    expect(await ids(`authorId=${String(author.id)}&published=true`)).toEqual([a.id]);
    expect(await ids(`authorId=${String(author.id)}&published=false`)).toEqual([b.id]);
    expect(await ids(`authorId=${String(author.id)}&status=review`)).toEqual([b.id]);
    expect(await ids(`authorId=${String(author.id)}&status=draft&published=true`)).toEqual([a.id]);
    expect(await ids(`authorId=${String(author.id)}&status=review&published=true`)).toEqual([]);
    const published = await ids("published=true");
    expect(published).toEqual(expect.arrayContaining([a.id, c.id]));
    expect(published).not.toContain(b.id);
    for (const article of list(await call(base, "GET", "/articles?published=true"))) expect(article.published).toBe(true);
    for (const article of list(await call(base, "GET", "/articles?status=draft"))) expect(article.status).toBe("draft");
    // Each listed object carries its links, as a single read does.
    const listed = list(await call(base, "GET", `/articles?authorId=${String(author.id)}&published=true`));
    expect(listed).toEqual([await call(base, "GET", `/articles/${String(a.id)}`).then(obj)]);
  });

  it("a filter that matches nothing gives the empty array", async () => {
    const reply = await call(base, "GET", "/articles?authorId=987654");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([]);
  });

  it.each([
    ["published=yes", "published"],
    ["published=TRUE", "published"],
    ["published=1", "published"],
    ["published=", "published"],
    ["authorId=abc", "authorId"],
    ["authorId=1.5", "authorId"],
    ["authorId=", "authorId"],
    ["authorId=0x10", "authorId"],
    ["authorId=%203", "authorId"],
    ["status=deleted", "status"],
    ["status=Draft", "status"],
    ["colour=red", "colour"],
    ["title=Hello", "title"],
  ])("?%s: 400 naming %s", async (query, field) => {
    expectError(await call(base, "GET", `/articles?${query}`), 400, [field]);
  });

  it("names every bad parameter at once", async () => {
    expectError(await call(base, "GET", "/articles?published=maybe&authorId=x&status=gone&extra=1"), 400, ["published", "authorId", "status", "extra"]);
  });

  it("a duplicated query parameter: 400 naming it", async () => {
    expectError(await call(base, "GET", "/articles?published=true&published=false"), 400, ["published"]);
    expectError(await call(base, "GET", "/articles?status=draft&status=draft"), 400, ["status"]);
  });

  it("a list without filters takes no query parameter at all", async () => {
    expectError(await call(base, "GET", "/authors?name=Ada"), 400, ["name"]);
    expectError(await call(base, "GET", "/articles/1?published=true"), 400, ["published"]);
  });
});

describe("links per state and the status machine", () => {
  it("self first, then the ref link when set, then the declared links whose when holds", async () => {
    const author = await createAuthor();
    const article = await createArticle({ title: "W", authorId: author.id });
    const href = `/articles/${String(article.id)}`;
    const authorLink = { rel: "author", method: "GET", href: `/authors/${String(author.id)}` };
    expect(article.links).toEqual([selfLink(article.id), authorLink, editLink(article.id), cancelLink(article.id)]);

    const review = obj(await call(base, "PATCH", href, { json: { status: "review" }, token }));
    expect(review.status).toBe("review");
    expect(review.links).toEqual([selfLink(article.id), authorLink, editLink(article.id)]);

    const published = obj(await call(base, "PATCH", href, { json: { status: "published" }, token }));
    expect(published.links).toEqual([selfLink(article.id), authorLink]);

    const archived = obj(await call(base, "PATCH", href, { json: { status: "archived", authorId: null }, token }));
    expect(archived.status).toBe("archived");
    expect(archived.links).toEqual([selfLink(article.id)]);
    expect((await call(base, "GET", href)).body).toEqual(archived);
  });

  it("the ref link follows the field's value", async () => {
    const article = await createArticle({ title: "R" });
    expect(article.links).toEqual([selfLink(article.id), editLink(article.id), cancelLink(article.id)]);
    const author = await createAuthor("Linked");
    const patched = obj(await call(base, "PATCH", `/articles/${String(article.id)}`, { json: { authorId: author.id }, token }));
    expect(patched.links).toEqual([
      selfLink(article.id),
      { rel: "author", method: "GET", href: `/authors/${String(author.id)}` },
      editLink(article.id),
      cancelLink(article.id),
    ]);
  });

  it("status on create is ignored: every article starts in draft", async () => {
    for (const status of ["published", "archived", "bogus"]) {
      const article = await createArticle({ title: status, status });
      expect(article.status).toBe("draft");
    }
  });

  it("declared transitions answer 200 (PATCH and PUT)", async () => {
    const article = await createArticle({ title: "T" });
    const href = `/articles/${String(article.id)}`;
    const steps: [string, string][] = [
      ["PATCH", "review"],
      ["PUT", "draft"],
      ["PATCH", "archived"],
    ];
    for (const [method, status] of steps) {
      const reply = await call(base, method, href, { json: { title: "T", status }, token });
      expect(reply.status, `${method} -> ${status}: ${reply.text}`).toBe(200);
      expect(obj(reply).status).toBe(status);
    }
  });

  it("a change not along a transition: 409 naming status, nothing changed", async () => {
    const article = await createArticle({ title: "X" });
    const href = `/articles/${String(article.id)}`;
    const refused = await call(base, "PATCH", href, { json: { status: "published", title: "changed" }, token });
    expect(expectError(refused, 409, ["status"]).status).toMatch(/draft/);
    expectError(await call(base, "PUT", href, { json: { title: "changed", status: "published" }, token }), 409, ["status"]);
    expect((await call(base, "GET", href)).body).toEqual(article);
  });

  it("every pair of states: allowed exactly along the declared transitions", async () => {
    const transitions: Record<string, string[]> = { draft: ["review", "archived"], review: ["draft", "published"], published: ["archived"], archived: [] };
    const path: Record<string, string[]> = { draft: [], review: ["review"], published: ["review", "published"], archived: ["archived"] };
    for (const from of Object.keys(transitions)) {
      for (const to of Object.keys(transitions)) {
        const article = await createArticle({ title: `${from}->${to}` });
        const href = `/articles/${String(article.id)}`;
        for (const step of path[from]!) expect((await call(base, "PATCH", href, { json: { status: step }, token })).status).toBe(200);
        const reply = await call(base, "PATCH", href, { json: { status: to }, token });
        const allowed = to === from || transitions[from]!.includes(to);
        expect(reply.status, `${from} -> ${to}: ${reply.text}`).toBe(allowed ? 200 : 409);
        if (!allowed) expectError(reply, 409, ["status"]);
        expect(obj(await call(base, "GET", href)).status).toBe(allowed ? to : from);
      }
    }
  });

  it("staying in the same state is no transition, even in a final state", async () => {
    const article = await createArticle({ title: "S" });
    const href = `/articles/${String(article.id)}`;
    expect((await call(base, "PATCH", href, { json: { status: "draft", title: "S2" }, token })).status).toBe(200);
    await call(base, "PATCH", href, { json: { status: "archived" }, token });
    const same = await call(base, "PUT", href, { json: { title: "S3", status: "archived" }, token });
    expect(same.status, same.text).toBe(200);
    expect(obj(same)).toMatchObject({ title: "S3", status: "archived" });
    expectError(await call(base, "PATCH", href, { json: { status: "draft" }, token }), 409, ["status"]);
  });

  it("PUT or PATCH without status keeps the current state", async () => {
    const article = await createArticle({ title: "K" });
    const href = `/articles/${String(article.id)}`;
    await call(base, "PATCH", href, { json: { status: "review" }, token });
    expect(obj(await call(base, "PUT", href, { json: { title: "K2" }, token })).status).toBe("review");
    expect(obj(await call(base, "PATCH", href, { json: { title: "K3" }, token })).status).toBe("review");
  });

  it("an undeclared status value is a validation error (400), not a conflict", async () => {
    const article = await createArticle({ title: "V" });
    expectError(await call(base, "PATCH", `/articles/${String(article.id)}`, { json: { status: "deleted" }, token }), 400, ["status"]);
    expectError(await call(base, "PATCH", `/articles/${String(article.id)}`, { json: { status: null }, token }), 400, ["status"]);
  });
});

// Guards and token endpoints over HTTP: every row of http-behaviour "Reading the Authorization
// header", the guard rows of "Errors" (bearer, generic oauth2 with and without auto-error,
// optional access, 401 against 403), and every rule of "Token endpoint" in its strict (blog)
// and permissive (guard-password, /_codegen/token) forms.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/serve/serve.js";
import { startFixtureServer } from "../support/generated.js";
import { START_TIMEOUT, call, expectAuthError, expectError, form, issueToken, list, obj, postForm, raw, startDeclaredServer } from "./support.js";
import type { RawReply, Reply } from "./support.js";

const ann = {
  name: "ann",
  password: "secret",
  scopes: [
    "articles:read",
    "articles:write",
    "authors:write",
    "tasks:read",
    "tasks:write",
    "metrics:read",
    "metrics:admin",
    "photos:read",
    "photos:write",
    "items:read",
  ],
};
const bob = { name: "bob", password: "b0b pass", scopes: ["articles:read"] };
const users = [ann, bob];

let blog: RunningServer;
let tasks: RunningServer;
let metrics: RunningServer;
let photos: RunningServer;
let generic: RunningServer;

// The generic guard with error raising on: no fixture declares it (guard-oauth2 has it off).
const GENERIC = `
codegen: 1
info: { title: Items, version: "1" }
auth:
  - guard: oauth2
    flows:
      clientCredentials:
        tokenUrl: https://id.example.com/token
        scopes: { items:read: Read items }
resources:
  items:
    fields: { name: { type: string, required: true } }
    access: { all: authenticated, get: [items:read] }
`;

beforeAll(async () => {
  [blog, tasks, metrics, photos, generic] = await Promise.all([
    startFixtureServer("blog", users),
    startFixtureServer("guard-password", users),
    startFixtureServer("guard-oauth2", users),
    startFixtureServer("guard-authorization-code", users),
    startDeclaredServer(GENERIC, users),
  ]);
}, START_TIMEOUT);
afterAll(async () => {
  await Promise.all([blog, tasks, metrics, photos, generic].map((s) => s?.close()));
});

const NOT_AUTHENTICATED = "Not authenticated";
const insufficient = (scopes: string) => `Bearer error="insufficient_scope", scope="${scopes}"`;

/** A request over a raw socket with the given header lines, and a JSON body when given. */
function rawRequest(base: string, method: string, target: string, headerLines: readonly string[], json?: unknown): Promise<RawReply> {
  const body = json === undefined ? "" : JSON.stringify(json);
  const lines = [
    `${method} ${target} HTTP/1.1`,
    ...headerLines,
    ...(json === undefined ? [] : ["Content-Type: application/json", `Content-Length: ${Buffer.byteLength(body)}`]),
  ];
  return raw(base, lines, body);
}

describe("bearer guard (blog, PATCH /articles/{id} needs articles:write)", () => {
  let writer = "";
  let reader = "";
  let href = "";
  beforeAll(async () => {
    writer = await issueToken(blog.url, ann, ["articles:write"], "/token");
    reader = await issueToken(blog.url, ann, ["articles:read"], "/token");
    const created = await call(blog.url, "POST", "/articles", { json: { title: "Guarded" }, token: writer });
    href = `/articles/${String(obj(created).id)}`;
  });
  const patch = (headerLines: readonly string[]) => rawRequest(blog.url, "PATCH", href, headerLines, {});

  it("the header absent: 401, WWW-Authenticate: Bearer, Not authenticated", async () => {
    expectAuthError(await patch([]), 401, "Bearer", NOT_AUTHENTICATED);
  });

  it.each([
    ["empty", ""],
    ["only white space", "   "],
    ["Basic x", "Basic x"],
    ["Basic with a valid token", "Basic <writer>"],
    ["Bearer<TAB>token", "Bearer\t<writer>"],
    ["Bearertoken", "Bearer<writer>"],
    ["Token token", "Token <writer>"],
    ["the token alone", "<writer>"],
  ])("scheme not bearer (%s): 401, WWW-Authenticate: Bearer, Not authenticated", async (_, value) => {
    expectAuthError(await patch([`Authorization: ${value.replace("<writer>", writer)}`]), 401, "Bearer", NOT_AUTHENTICATED);
  });

  it.each([
    ["Bearer followed by nothing", "Bearer"],
    ["Bearer and a space", "Bearer "],
    ["a token never issued", "Bearer x"],
    ["bearer x", "bearer x"],
    ["Bearer  x (inner space kept, outer trimmed)", "Bearer  x "],
    ["a valid token with more after a space", "Bearer <writer> extra"],
    ["a valid token cut short", "Bearer <writer-1>"],
  ])("credential rejected (%s): 401, WWW-Authenticate: Bearer", async (_, value) => {
    const reply = await patch([`Authorization: ${value.replace("<writer>", writer).replace("<writer-1>", writer.slice(0, -1))}`]);
    expectAuthError(reply, 401, "Bearer");
    expect(obj(reply).detail).not.toBe("");
  });

  it.each([
    ["Bearer <token>", "Bearer <writer>"],
    ["bearer <token>", "bearer <writer>"],
    ["BEARER <token>", "BEARER <writer>"],
    ["bEaReR <token>", "bEaReR <writer>"],
    ["Bearer  <token> (spaces around the token trimmed)", "Bearer  <writer> "],
    ["Bearer <token><TAB>", "Bearer <writer>\t\t"],
  ])("accepted: %s", async (_, value) => {
    const reply = await patch([`Authorization: ${value.replace("<writer>", writer)}`]);
    expect(reply.status, reply.text).toBe(200);
    expect(obj(reply).title).toBe("Guarded");
  });

  it("a header sent twice: the first counts", async () => {
    expect((await patch([`Authorization: Bearer ${writer}`, "Authorization: Bearer x"])).status).toBe(200);
    expect((await patch([`Authorization: Bearer ${writer}`, "Authorization: Basic x"])).status).toBe(200);
    expectAuthError(await patch(["Authorization: Bearer x", `Authorization: Bearer ${writer}`]), 401, "Bearer");
    expectAuthError(await patch(["Authorization: Basic x", `Authorization: Bearer ${writer}`]), 401, "Bearer", NOT_AUTHENTICATED);
    expectAuthError(
      await patch([`Authorization: Bearer ${reader}`, `Authorization: Bearer ${writer}`]),
      403,
      insufficient("articles:write"),
      "Not enough permissions",
    );
  });

  it("a valid token without the required scope: 403 insufficient_scope naming it", async () => {
    expectAuthError(await patch([`Authorization: Bearer ${reader}`]), 403, insufficient("articles:write"), "Not enough permissions");
    const none = await issueToken(blog.url, ann, [], "/token");
    expectAuthError(await patch([`Authorization: Bearer ${none}`]), 403, insufficient("articles:write"), "Not enough permissions");
    const authors = await issueToken(blog.url, ann, ["authors:write", "articles:read"], "/token");
    expectAuthError(await patch([`Authorization: Bearer ${authors}`]), 403, insufficient("articles:write"), "Not enough permissions");
  });

  it("every operation of the guard refuses alike (fetch, JSON bodies)", async () => {
    for (const [method, target, json] of [
      ["POST", "/articles", { title: "x" }],
      ["PUT", href, { title: "x" }],
      ["PATCH", href, {}],
      ["DELETE", href, undefined],
      ["POST", "/authors", { name: "x", email: "x@example.com" }],
    ] as const) {
      const options = json === undefined ? {} : { json };
      expectAuthError(await call(blog.url, method, target, options), 401, "Bearer", NOT_AUTHENTICATED);
      expectAuthError(await call(blog.url, method, target, { ...options, token: "x" }), 401, "Bearer");
      const scope = target.startsWith("/authors") ? "authors:write" : "articles:write";
      expectAuthError(await call(blog.url, method, target, { ...options, token: reader }), 403, insufficient(scope), "Not enough permissions");
    }
  });
});

describe("optional access (blog article reads)", () => {
  let href = "";
  let token = "";
  beforeAll(async () => {
    const writer = await issueToken(blog.url, ann, ["articles:write"], "/token");
    href = `/articles/${String(obj(await call(blog.url, "POST", "/articles", { json: { title: "Open" }, token: writer })).id)}`;
    token = await issueToken(blog.url, bob, [], "/token");
  });

  it.each([
    ["no header", []],
    ["an empty header", ["Authorization:"]],
    ["Basic credentials", ["Authorization: Basic dXNlcjpwYXNz"]],
    ["Bearer<TAB>x", ["Authorization: Bearer\tx"]],
    ["Bearerx", ["Authorization: Bearerx"]],
  ])("%s: the request proceeds without a principal (200)", async (_, headerLines) => {
    for (const target of [href, "/articles"]) {
      const reply = await rawRequest(blog.url, "GET", target, headerLines);
      expect(reply.status, `${target}: ${reply.text}`).toBe(200);
    }
  });

  it.each([
    ["a token never issued", "Bearer x"],
    ["Bearer followed by nothing", "Bearer"],
    ["bearer and a bad token", "bearer not-a-token"],
  ])("%s: 401 even though access is optional", async (_, value) => {
    for (const target of [href, "/articles"]) {
      expectAuthError(await rawRequest(blog.url, "GET", target, [`Authorization: ${value}`]), 401, "Bearer");
    }
  });

  it("a valid token, with or without scopes: 200", async () => {
    expect((await call(blog.url, "GET", href, { token })).status).toBe(200);
    expect((await call(blog.url, "GET", "/articles", { token })).status).toBe(200);
    const scoped = await issueToken(blog.url, ann, ["authors:write"], "/token");
    expect((await call(blog.url, "GET", href, { token: scoped })).status).toBe(200);
  });

  it("public operations run no guard: any header passes", async () => {
    for (const value of ["Bearer x", "Bearer", "Basic x", ""]) {
      const reply = await rawRequest(blog.url, "GET", "/authors", [`Authorization: ${value}`]);
      expect(reply.status, value).toBe(200);
      expect((await rawRequest(blog.url, "GET", "/", [`Authorization: ${value}`])).status).toBe(200);
    }
  });
});

describe("generic oauth2 guard with auto-error off, beside a password guard (guard-oauth2)", () => {
  let readerToken = "";
  let adminToken = "";
  let href = "";
  beforeAll(async () => {
    readerToken = await issueToken(metrics.url, ann, ["metrics:read"], "/token");
    adminToken = await issueToken(metrics.url, ann, ["metrics:admin"], "/token");
    const created = await call(metrics.url, "POST", "/series", { json: { name: "latency", unit: "ms" }, token: adminToken });
    expect(created.status, created.text).toBe(201);
    href = `/series/${String(obj(created).id)}`;
  });

  it.each([
    ["absent", []],
    ["empty", ["Authorization:"]],
  ])("header %s: the request proceeds without a principal", async (_, headerLines) => {
    const one = await rawRequest(metrics.url, "GET", href, headerLines);
    expect(one.status, one.text).toBe(200);
    expect(obj(one).name).toBe("latency");
    expect((await rawRequest(metrics.url, "GET", "/series", headerLines)).status).toBe(200);
  });

  it("the whole header is the credential: a bare token, or one after Bearer", async () => {
    for (const value of [readerToken, `Bearer ${readerToken}`, `bearer ${readerToken}`]) {
      const reply = await rawRequest(metrics.url, "GET", href, [`Authorization: ${value}`]);
      expect(reply.status, `${value}: ${reply.text}`).toBe(200);
    }
  });

  it("a header present but rejected by the token check: 401", async () => {
    for (const value of ["nonsense", "Basic x", `${readerToken} extra`, "Bearer", "Bearer x"]) {
      expectAuthError(await rawRequest(metrics.url, "GET", href, [`Authorization: ${value}`]), 401, "Bearer");
    }
  });

  it("a valid credential without the scope: 403 insufficient_scope", async () => {
    for (const value of [adminToken, `Bearer ${adminToken}`]) {
      expectAuthError(await rawRequest(metrics.url, "GET", href, [`Authorization: ${value}`]), 403, insufficient("metrics:read"), "Not enough permissions");
    }
  });

  it("the password guard alone (writes) keeps error raising on", async () => {
    expectAuthError(await call(metrics.url, "PATCH", href, { json: {} }), 401, "Bearer", NOT_AUTHENTICATED);
    expectAuthError(await call(metrics.url, "PATCH", href, { json: {}, headers: { Authorization: adminToken } }), 401, "Bearer", NOT_AUTHENTICATED);
    expectAuthError(await call(metrics.url, "PATCH", href, { json: {}, token: readerToken }), 403, insufficient("metrics:admin"), "Not enough permissions");
    expect((await call(metrics.url, "PATCH", href, { json: { unit: "count" }, token: adminToken })).status).toBe(200);
  });

  it("a public delete needs nothing", async () => {
    const created = obj(await call(metrics.url, "POST", "/series", { json: { name: "gone" }, token: adminToken }));
    expect((await call(metrics.url, "DELETE", `/series/${String(created.id)}`, { token: "whatever" })).status).toBe(204);
  });
});

describe("generic oauth2 guard with auto-error on (declared here)", () => {
  let token = "";
  let none = "";
  let href = "";
  beforeAll(async () => {
    token = await issueToken(generic.url, ann, ["items:read"]);
    none = await issueToken(generic.url, ann, []);
    const created = await call(generic.url, "POST", "/items", { json: { name: "i" }, headers: { Authorization: none } });
    expect(created.status, created.text).toBe(201);
    href = `/items/${String(obj(created).id)}`;
  });

  it("header absent or empty: 403 Not authenticated, without a challenge", async () => {
    for (const lines of [[], ["Authorization:"]]) {
      expectAuthError(await rawRequest(generic.url, "GET", href, lines), 403, undefined, NOT_AUTHENTICATED);
      expectAuthError(await rawRequest(generic.url, "GET", "/items", lines), 403, undefined, NOT_AUTHENTICATED);
    }
  });

  it("the whole header value is the credential", async () => {
    for (const value of [token, `Bearer ${token}`, `BEARER ${token}`]) {
      const reply = await rawRequest(generic.url, "GET", href, [`Authorization: ${value}`]);
      expect(reply.status, `${value}: ${reply.text}`).toBe(200);
    }
  });

  it("a credential rejected by the token check: 401", async () => {
    for (const value of ["x", "Basic x", `Bearer\t${token}`, `Bearer  ${token}`]) {
      expectAuthError(await rawRequest(generic.url, "GET", href, [`Authorization: ${value}`]), 401, "Bearer");
    }
  });

  it("authenticated needs no scope; a scoped operation answers 403 insufficient_scope", async () => {
    expect((await rawRequest(generic.url, "GET", "/items", [`Authorization: ${none}`])).status).toBe(200);
    expectAuthError(await rawRequest(generic.url, "GET", href, [`Authorization: ${none}`]), 403, insufficient("items:read"), "Not enough permissions");
  });
});

describe("authorization-code guard (guard-authorization-code)", () => {
  let none = "";
  let readToken = "";
  let href = "";
  beforeAll(async () => {
    none = await issueToken(photos.url, ann, []);
    readToken = await issueToken(photos.url, ann, ["photos:read"]);
    const writer = await issueToken(photos.url, ann, ["photos:write"]);
    href = `/photos/${String(obj(await call(photos.url, "POST", "/photos", { json: { url: "https://x.example/1" }, token: writer })).id)}`;
  });

  it("behaves as the bearer guard: 401 with Bearer for a missing or non-bearer credential", async () => {
    expectAuthError(await rawRequest(photos.url, "PATCH", href, [], {}), 401, "Bearer", NOT_AUTHENTICATED);
    expectAuthError(await rawRequest(photos.url, "PATCH", href, [`Authorization: Bearer\t${none}`], {}), 401, "Bearer", NOT_AUTHENTICATED);
    expectAuthError(await rawRequest(photos.url, "PATCH", href, ["Authorization: Bearer x"], {}), 401, "Bearer");
  });

  it("authenticated: any valid token, no scope needed", async () => {
    expect((await call(photos.url, "PATCH", href, { json: { caption: "c" }, token: none })).status).toBe(200);
    expect((await call(photos.url, "PATCH", href, { json: {}, headers: { Authorization: `bearer ${none}` } })).status).toBe(200);
  });

  it("scoped reads and writes: 403 naming the missing scope; optional list", async () => {
    expectAuthError(await call(photos.url, "GET", href, { token: none }), 403, insufficient("photos:read"), "Not enough permissions");
    expect((await call(photos.url, "GET", href, { token: readToken })).status).toBe(200);
    expectAuthError(
      await call(photos.url, "POST", "/photos", { json: { url: "https://x.example/2" }, token: readToken }),
      403,
      insufficient("photos:write"),
      "Not enough permissions",
    );
    expect((await call(photos.url, "GET", "/photos")).status).toBe(200);
    expectAuthError(await call(photos.url, "GET", "/photos", { token: "x" }), 401, "Bearer");
  });
});

describe("password guard (guard-password): several scopes, write-only field", () => {
  it("an operation needing two scopes names both in the challenge", async () => {
    const both = await issueToken(tasks.url, ann, ["tasks:read", "tasks:write"], "/oauth/token");
    const one = await issueToken(tasks.url, ann, ["tasks:write"], "/oauth/token");
    const created = obj(await call(tasks.url, "POST", "/tasks", { json: { title: "t" }, token: one }));
    const href = `/tasks/${String(created.id)}`;
    expectAuthError(await call(tasks.url, "DELETE", href, { token: one }), 403, insufficient("tasks:read tasks:write"), "Not enough permissions");
    expect((await call(tasks.url, "DELETE", href, { token: both })).status).toBe(204);
  });

  it("a write-only field is accepted and never shown", async () => {
    const token = await issueToken(tasks.url, ann, ["tasks:read", "tasks:write"], "/oauth/token");
    const created = await call(tasks.url, "POST", "/tasks", { json: { title: "w", secret: "hunter2" }, token });
    expect(created.status, created.text).toBe(201);
    expect(created.text).not.toContain("hunter2");
    expect(Object.hasOwn(obj(created), "secret")).toBe(false);
    const href = `/tasks/${String(obj(created).id)}`;
    for (const reply of [
      await call(tasks.url, "GET", href, { token }),
      await call(tasks.url, "GET", "/tasks", { token }),
      await call(tasks.url, "PATCH", href, { json: { secret: "s2" }, token }),
    ]) {
      expect(reply.status).toBe(200);
      expect(reply.text).not.toContain("hunter2");
      expect(reply.text).not.toContain("secret");
    }
    expectError(await call(tasks.url, "POST", "/tasks", { json: { title: "w", secret: 5 }, token }), 400, ["secret"]);
  });
});

describe("token endpoint, strict form (blog POST /token)", () => {
  const post = (body: string, headers: Record<string, string> = {}) => postForm(blog.url, "/token", body, headers);
  const full = (change: Record<string, string | undefined> = {}) => {
    const fields: Record<string, string | undefined> = { grant_type: "password", username: "ann", password: "secret", scope: "articles:read", ...change };
    return form(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined));
  };
  const expectTokenError = (reply: Reply | RawReply, code: string, fields: readonly string[]) => {
    const detail = expectError(reply, 400, fields);
    expect(obj(reply).error).toBe(code);
    expect(reply.headers.get("cache-control")).toBe("no-store");
    return detail;
  };

  it("a valid request: 200 with the token, no-store, and exactly the requested scopes", async () => {
    const reply = await post(full({ scope: "articles:read articles:write" }));
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers.get("cache-control")).toBe("no-store");
    expect(reply.headers.get("pragma")).toBe("no-cache");
    const body = obj(reply);
    expect(body).toMatchObject({ token_type: "bearer", scope: "articles:read articles:write" });
    expect(typeof body.access_token).toBe("string");
    expect(body.access_token).not.toBe("");
    for (const key of Object.keys(body)) expect(["access_token", "token_type", "expires_in", "refresh_token", "scope"]).toContain(key);
    const token = body.access_token as string;
    expect((await call(blog.url, "POST", "/articles", { json: { title: "by token" }, token })).status).toBe(201);
    expectAuthError(await call(blog.url, "POST", "/authors", { json: { name: "n", email: "n@example.com" }, token }), 403, insufficient("authors:write"));
  });

  it.each([
    ["grant_type missing", { grant_type: undefined }, ["grant_type"]],
    ["grant_type empty (counts as absent)", { grant_type: "" }, ["grant_type"]],
    ["username missing", { username: undefined }, ["username"]],
    ["username empty", { username: "" }, ["username"]],
    ["password missing", { password: undefined }, ["password"]],
    ["password empty", { password: "" }, ["password"]],
    ["everything missing", { grant_type: undefined, username: undefined, password: undefined, scope: undefined }, ["grant_type", "username", "password"]],
    ["username and password empty", { username: "", password: "" }, ["username", "password"]],
  ])("%s: 400 invalid_request naming each field", async (_, change, fields) => {
    expectTokenError(await post(full(change)), "invalid_request", fields);
  });

  it("an empty form: 400 naming every required field", async () => {
    expectTokenError(await post(""), "invalid_request", ["grant_type", "username", "password"]);
  });

  it("no Content-Type and an empty body is an empty form: 400 naming every required field", async () => {
    expectTokenError(await raw(blog.url, ["POST /token HTTP/1.1", "Content-Length: 0"]), "invalid_request", ["grant_type", "username", "password"]);
  });

  it.each([
    ["application/json", full()],
    ["text/plain", full()],
    ["multipart/form-data; boundary=x", full()],
    ["application/x-www-form-urlencoded-not", full()],
  ])("Content-Type %s: 415", async (contentType, body) => {
    expectError(await post(body, { "Content-Type": contentType }), 415);
  });

  it("no Content-Type with a body: 415", async () => {
    const body = full();
    expectError(await raw(blog.url, ["POST /token HTTP/1.1", `Content-Length: ${body.length}`], body), 415);
  });

  it("Content-Type parameters and case are accepted", async () => {
    expect((await post(full(), { "Content-Type": "Application/X-WWW-Form-Urlencoded; charset=UTF-8" })).status).toBe(200);
  });

  it.each(["client_credentials", "authorization_code", "Password", "PASSWORD", "password ", " password", "passwordx", "refresh_token"])(
    "grant_type=%j: 400 unsupported_grant_type naming grant_type",
    async (grantType) => {
      expectTokenError(await post(full({ grant_type: grantType })), "unsupported_grant_type", ["grant_type"]);
    },
  );

  it("another grant type answers unsupported_grant_type even when other fields are missing", async () => {
    expectTokenError(await post(form([["grant_type", "client_credentials"]])), "unsupported_grant_type", ["grant_type"]);
  });

  it("a repeated field: the last one counts", async () => {
    const first = form([
      ["grant_type", "password"],
      ["username", "bob"],
      ["username", "ann"],
      ["password", "secret"],
    ]);
    expect((await post(first)).status).toBe(200);
    const last = form([
      ["grant_type", "password"],
      ["username", "ann"],
      ["username", "bob"],
      ["password", "secret"],
    ]);
    expectTokenError(await post(last), "invalid_grant", ["password"]);
    const emptied = form([
      ["grant_type", "password"],
      ["username", "ann"],
      ["username", ""],
      ["password", "secret"],
    ]);
    expectTokenError(await post(emptied), "invalid_request", ["username"]);
    const grant = form([
      ["grant_type", "client_credentials"],
      ["grant_type", "password"],
      ["username", "ann"],
      ["password", "secret"],
    ]);
    expect((await post(grant)).status).toBe(200);
    const scopes = form([
      ["grant_type", "password"],
      ["username", "bob"],
      ["password", "b0b pass"],
      ["scope", "articles:write"],
      ["scope", "articles:read"],
    ]);
    const reply = await post(scopes);
    expect(reply.status, reply.text).toBe(200);
    expect(obj(reply).scope).toBe("articles:read");
  });

  it("credentials the application rejects: 400 invalid_grant", async () => {
    expectTokenError(await post(full({ password: "wrong" })), "invalid_grant", ["password"]);
    expectTokenError(await post(full({ username: "nobody" })), "invalid_grant", ["password"]);
    // Values are not trimmed.
    expectTokenError(await post(full({ password: " secret" })), "invalid_grant", ["password"]);
    expectTokenError(await post(full({ username: "ann " })), "invalid_grant", ["password"]);
    // A password with a space, sent form-encoded (`+`), is the user's password.
    const reply = await post(
      form([
        ["grant_type", "password"],
        ["username", "bob"],
        ["password", "b0b pass"],
      ]),
    );
    expect(reply.status, reply.text).toBe(200);
  });

  it("a scope the user does not hold: 400 invalid_scope naming scope", async () => {
    expectTokenError(
      await post(
        form([
          ["grant_type", "password"],
          ["username", "bob"],
          ["password", "b0b pass"],
          ["scope", "articles:read articles:write"],
        ]),
      ),
      "invalid_scope",
      ["scope"],
    );
    expectTokenError(await post(full({ scope: "no:such:scope" })), "invalid_scope", ["scope"]);
  });

  it("scope splits on any run of white space; blank is the empty list", async () => {
    const spaced = await post(full({ scope: "  articles:read\t\narticles:write   " }));
    expect(spaced.status, spaced.text).toBe(200);
    expect(obj(spaced).scope).toBe("articles:read articles:write");
    for (const scope of [undefined, "", "   ", "\t"]) {
      const reply = await post(full({ scope }));
      expect(reply.status, reply.text).toBe(200);
      expect(obj(reply).scope ?? "").toBe("");
      const token = obj(reply).access_token as string;
      expect((await call(blog.url, "GET", "/articles", { token })).status).toBe(200);
      expectAuthError(await call(blog.url, "POST", "/articles", { json: { title: "x" }, token }), 403, insufficient("articles:write"));
    }
  });

  it("unknown fields are ignored", async () => {
    expect((await post(`${full()}&foo=bar&username2=x&redirect_uri=https%3A%2F%2Fx`)).status).toBe(200);
  });

  it("client credentials: in the form, or by HTTP Basic, not both; an empty client_id is none", async () => {
    expect((await post(full({ client_id: "app", client_secret: "s3cret" }))).status).toBe(200);
    expect((await post(full({ client_id: "" }))).status).toBe(200);
    const basic = `Basic ${Buffer.from("app:s3cret").toString("base64")}`;
    expect((await post(full(), { Authorization: basic })).status).toBe(200);
    expectTokenError(await post(full({ client_id: "app" }), { Authorization: basic }), "invalid_request", ["client_id"]);
    expectTokenError(await post(full(), { Authorization: "Basic !!!" }), "invalid_request", ["authorization"]);
    // A bearer header is no client authentication: the token endpoint has no guard.
    expect((await post(full(), { Authorization: "Bearer x" })).status).toBe(200);
  });

  it("the token endpoint answers only POST, and only JSON", async () => {
    const get = await call(blog.url, "GET", "/token");
    expectError(get, 405);
    expect(get.headers.get("allow")).toBe("POST, OPTIONS");
    expectError(await post(full(), { Accept: "text/html" }), 406);
  });
});

describe("token endpoint, permissive form (guard-password POST /oauth/token, blog POST /_codegen/token)", () => {
  const cases = [
    ["guard-password", "/oauth/token"],
    ["blog", "/_codegen/token"],
  ] as const;
  const baseOf = (name: string) => (name === "blog" ? blog.url : tasks.url);

  it.each(cases)("%s %s: grant_type may be absent or empty", async (name, target) => {
    for (const body of [
      form([
        ["username", "ann"],
        ["password", "secret"],
      ]),
      form([
        ["grant_type", ""],
        ["username", "ann"],
        ["password", "secret"],
      ]),
      form([
        ["grant_type", "password"],
        ["username", "ann"],
        ["password", "secret"],
      ]),
    ]) {
      const reply = await postForm(baseOf(name), target, body);
      expect(reply.status, `${body}: ${reply.text}`).toBe(200);
      expect(reply.headers.get("cache-control")).toBe("no-store");
    }
  });

  it.each(cases)("%s %s: missing fields named; no Content-Type and no body names username and password", async (name, target) => {
    const base = baseOf(name);
    const missing = await postForm(base, target, form([["username", "ann"]]));
    expectError(missing, 400, ["password"]);
    expect(obj(missing).error).toBe("invalid_request");
    const empty = await raw(base, [`POST ${target} HTTP/1.1`, "Content-Length: 0"]);
    expectError(empty, 400, ["username", "password"]);
    expect(obj(empty).error).toBe("invalid_request");
  });

  it.each(cases)("%s %s: unsupported_grant_type, 415, invalid_grant, invalid_scope", async (name, target) => {
    const base = baseOf(name);
    const grant = await postForm(
      base,
      target,
      form([
        ["grant_type", "client_credentials"],
        ["username", "ann"],
        ["password", "secret"],
      ]),
    );
    expectError(grant, 400, ["grant_type"]);
    expect(obj(grant).error).toBe("unsupported_grant_type");
    expectError(
      await postForm(
        base,
        target,
        form([
          ["username", "ann"],
          ["password", "secret"],
        ]),
        { "Content-Type": "application/json" },
      ),
      415,
    );
    const wrong = await postForm(
      base,
      target,
      form([
        ["username", "ann"],
        ["password", "nope"],
      ]),
    );
    expectError(wrong, 400);
    expect(obj(wrong).error).toBe("invalid_grant");
    const scope = await postForm(
      base,
      target,
      form([
        ["username", "bob"],
        ["password", "b0b pass"],
        ["scope", "tasks:write"],
      ]),
    );
    expectError(scope, 400, ["scope"]);
    expect(obj(scope).error).toBe("invalid_scope");
  });

  it("the token carries exactly the requested scopes (guard-password)", async () => {
    const read = await issueToken(tasks.url, ann, ["tasks:read"], "/oauth/token");
    expect((await call(tasks.url, "GET", "/tasks", { token: read })).status).toBe(200);
    expectAuthError(await call(tasks.url, "POST", "/tasks", { json: { title: "t" }, token: read }), 403, insufficient("tasks:write"));
    const list0 = list(await call(tasks.url, "GET", "/tasks", { token: read }));
    expect(Array.isArray(list0)).toBe(true);
  });

  it("the index links the API's own token endpoint, and none when the token URL is elsewhere", async () => {
    // The index always ends with the served document and its page (RFC 8631).
    const SERVICE_LINKS = [
      { rel: "service-desc", method: "GET", href: "/openapi.json" },
      { rel: "service-doc", method: "GET", href: "/docs" },
    ];
    expect(obj(await call(tasks.url, "GET", "/")).links).toEqual([
      { rel: "tasks", method: "GET", href: "/tasks" },
      { rel: "token", method: "POST", href: "/oauth/token" },
      ...SERVICE_LINKS,
    ]);
    expect(obj(await call(photos.url, "GET", "/")).links).toEqual([{ rel: "photos", method: "GET", href: "/photos" }, ...SERVICE_LINKS]);
    expectError(
      await call(photos.url, "POST", "/token", {
        body: form([
          ["username", "ann"],
          ["password", "secret"],
        ]),
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      }),
      404,
    );
  });
});

// The security matrix of the blog fixture: every operation of its OpenAPI document, called with
// no credential, a non-bearer header, a token the issuer never issued, and a valid token for
// each subset of the blog's scopes. The expected outcome is computed from the operation's
// `security` (public `[]`; optional: `{}` among the requirements; scoped: every scope of one
// requirement held), never written per row; a refused request must change nothing.
//
// Then the same for documents with several schemes per requirement and schemes other than OAuth2
//: the blog's document round-tripped with an API key added (still codegen's own
// document: resource operations), and a document written by others with API keys in a header, the
// query and a cookie, HTTP bearer and Basic, and OAuth2 with scopes, combined with AND and OR.
// Every operation is tried with every combination of credentials; an oracle written here from the
// OpenAPI 3.1 "Security Requirement Object" gives the expected answer, and no cell may let in a
// request that no requirement object lets in.

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import type { RunningServer } from "../../src/serve/serve.js";
import { startFixtureServer } from "../support/generated.js";
import { START_TIMEOUT, call, compileText, fixtureDocument, form, generateText, issueToken, list, obj, startDeclaredServer } from "./support.js";
import type { Json, Reply } from "./support.js";

const document = fixtureDocument("blog");
const METHODS = ["get", "put", "post", "delete", "patch"] as const;

type Requirement = { readonly [scheme: string]: readonly string[] };
type Operation = {
  readonly operationId: string;
  readonly method: string;
  readonly path: string;
  readonly security: readonly Requirement[];
  readonly success: number;
  readonly statuses: readonly number[];
  readonly body?: { readonly type: string; readonly schema: Json };
};

const components = document.components as { schemas: { [name: string]: Json }; securitySchemes: { [name: string]: Json } };

/** Every operation of a document, with its effective security (its own, else the document's). */
function operations(doc: Json = document): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as { [path: string]: Json })) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const security = (op.security ?? doc.security) as Requirement[] | undefined;
      if (security === undefined) throw new Error(`${method} ${path} has no security at all`);
      const statuses = Object.keys(op.responses as Json).map(Number);
      const success = Math.min(...statuses.filter((s) => s >= 200 && s < 300));
      const content = (op.requestBody as { content?: { [type: string]: { schema: Json } } } | undefined)?.content;
      const [type, media] = Object.entries(content ?? {})[0] ?? [];
      found.push({
        operationId: op.operationId as string,
        method: method.toUpperCase(),
        path,
        security,
        success,
        statuses,
        ...(type && media ? { body: { type, schema: media.schema } } : {}),
      });
    }
  }
  return found;
}

/** Every scope any security scheme of the document declares. */
function declaredScopes(): string[] {
  const names = new Set<string>();
  for (const scheme of Object.values(components.securitySchemes)) {
    for (const flow of Object.values(scheme.flows as { [flow: string]: { scopes?: Json } })) for (const name of Object.keys(flow.scopes ?? {})) names.add(name);
  }
  return [...names].sort();
}

function subsets<T>(items: readonly T[]): T[][] {
  return items.reduce<T[][]>((all, item) => [...all, ...all.map((s) => [...s, item])], [[]]);
}

type Credential = { readonly label: string; readonly header?: string } & (
  { readonly kind: "none" | "non-bearer" | "never-issued" } | { readonly kind: "token"; readonly scopes: readonly string[] }
);

type Expected =
  { readonly outcome: "allowed" } | { readonly outcome: "refused"; readonly status: 401 | 403; readonly challenge: string; readonly detail?: string };

/** What `security` says of a credential (http-behaviour "Errors" and declaration "Access"). */
function expectedOutcome(security: readonly Requirement[], credential: Credential): Expected {
  if (security.length === 0) return { outcome: "allowed" };
  const optional = security.some((requirement) => Object.keys(requirement).length === 0);
  const scoped = security.filter((requirement) => Object.keys(requirement).length > 0);
  const bearerOnly = scoped.every((requirement) =>
    Object.keys(requirement).every((scheme) => components.securitySchemes[scheme]?.["x-codegen-guard"] !== "oauth2"),
  );
  expect(bearerOnly, "the blog's guards are all bearer guards").toBe(true);
  switch (credential.kind) {
    case "none":
    case "non-bearer":
      return optional ? { outcome: "allowed" } : { outcome: "refused", status: 401, challenge: "Bearer", detail: "Not authenticated" };
    case "never-issued":
      return { outcome: "refused", status: 401, challenge: "Bearer" };
    case "token": {
      const held = (requirement: Requirement) => Object.values(requirement).every((needed) => needed.every((scope) => credential.scopes.includes(scope)));
      if (security.some(held)) return { outcome: "allowed" };
      const needed = [...new Set(Object.values(scoped[0]!).flat())];
      return { outcome: "refused", status: 403, challenge: `Bearer error="insufficient_scope", scope="${needed.join(" ")}"`, detail: "Not enough permissions" };
    }
  }
}

/** A value a schema accepts: each required property, filled from its type, format or enum. */
function sample(schema: Json): unknown {
  if (typeof schema.$ref === "string") return sample(components.schemas[schema.$ref.split("/").at(-1)!]!);
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== "null") : schema.type;
  switch (type) {
    case "object": {
      const properties = (schema.properties ?? {}) as { [name: string]: Json };
      const value: Json = {};
      for (const name of (schema.required ?? []) as string[]) value[name] = sample(properties[name]!);
      return value;
    }
    case "string":
      return schema.format === "email" ? "someone@example.com" : "text";
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return true;
    case "array":
      return [];
    default:
      throw new Error(`no sample for ${JSON.stringify(schema)}`);
  }
}

const ops = operations();
const scopes = declaredScopes();
const admin = { name: "root", password: "root pw", scopes };
let server: RunningServer;
let base = "";
let adminToken = "";
const tokens = new Map<string, string>();

const credentials: Credential[] = [
  { kind: "none", label: "no credential" },
  { kind: "non-bearer", label: "Basic credentials", header: "Basic cm9vdDpyb290IHB3" },
  { kind: "never-issued", label: "a token never issued", header: "Bearer never-issued-token" },
  ...subsets(scopes).map((held): Credential => ({ kind: "token", scopes: held, label: `a token with [${held.join(", ")}]` })),
];

beforeAll(async () => {
  server = await startFixtureServer("blog", [admin]);
  base = server.url;
  adminToken = await issueToken(base, admin, scopes, "/token");
  for (const held of subsets(scopes)) tokens.set(held.join(" "), await issueToken(base, admin, held, "/token"));
}, START_TIMEOUT);
afterAll(() => server?.close());

/** The path's collection, and a fresh object of it when the path has `{id}`. */
async function target(op: Operation): Promise<{ path: string; collection: string }> {
  const collection = op.path.split("/")[1] ?? "";
  if (!op.path.includes("{id}")) return { path: op.path, collection };
  const create = ops.find((o) => o.path === `/${collection}` && o.method === "POST");
  const reply = await call(base, "POST", `/${collection}`, { json: sample(create!.body!.schema), token: adminToken });
  expect(reply.status, reply.text).toBe(201);
  return { path: op.path.replace("{id}", String(obj(reply).id)), collection };
}

function send(op: Operation, path: string, credential: Credential): Promise<Reply> {
  const header = credential.kind === "token" ? `Bearer ${tokens.get(credential.scopes.join(" "))!}` : credential.header;
  return request(base, op, path, header === undefined ? {} : { Authorization: header });
}

/** Calls an operation with these headers and, when it takes one, a body its schema accepts. */
function request(at: string, op: Operation, path: string, headers: Record<string, string>): Promise<Reply> {
  if (!op.body) return call(at, op.method, path, { headers });
  if (op.body.type === "application/x-www-form-urlencoded") {
    const body = form([
      ["grant_type", "password"],
      ["username", admin.name],
      ["password", admin.password],
    ]);
    return call(at, op.method, path, { body, headers: { ...headers, "Content-Type": op.body.type } });
  }
  return call(at, op.method, path, { json: sample(op.body.schema), headers });
}

/** What a refused request must not have changed: the object, or the collection's size. */
async function snapshot(op: Operation, path: string, collection: string): Promise<unknown> {
  if (op.path.includes("{id}")) return (await call(base, "GET", path, { token: adminToken })).body;
  if (op.method === "POST" && collection !== "token") return list(await call(base, "GET", `/${collection}`, { token: adminToken })).length;
  return undefined;
}

describe("security matrix of the blog fixture, from its OpenAPI document", () => {
  it("reads every operation, each with an explicit security, and every declared scope", () => {
    expect(ops.map((op) => op.operationId).sort()).toEqual(
      [
        "createArticle",
        "createAuthor",
        "deleteArticle",
        "deleteAuthor",
        "getArticle",
        "getAuthor",
        "getIndex",
        "issueToken",
        "listArticles",
        "listAuthors",
        "replaceArticle",
        "replaceAuthor",
        "updateArticle",
        "updateAuthor",
      ].sort(),
    );
    expect(scopes).toEqual(["articles:read", "articles:write", "authors:write"]);
    expect(credentials).toHaveLength(3 + 8);
    // Every kind of access is in the matrix: public, optional and scoped.
    expect(ops.some((op) => op.security.length === 0)).toBe(true);
    expect(ops.some((op) => op.security.some((r) => Object.keys(r).length === 0))).toBe(true);
    expect(ops.some((op) => op.security.some((r) => Object.values(r).some((s) => s.length > 0)))).toBe(true);
  });

  it.each(ops.map((op) => [`${op.method} ${op.path} (${op.operationId})`, op] as const))("%s", async (_, op) => {
    for (const credential of credentials) {
      const { path, collection } = await target(op);
      const before = await snapshot(op, path, collection);
      const reply = await send(op, path, credential);
      const want = expectedOutcome(op.security, credential);
      const where = `${op.method} ${path} with ${credential.label}: ${reply.status} ${reply.text}`;
      expect(op.statuses, `${where}: the document declares the status`).toContain(reply.status);
      if (want.outcome === "allowed") {
        expect(reply.status, where).toBe(op.success);
      } else {
        expect(reply.status, where).toBe(want.status);
        expect(reply.headers.get("www-authenticate"), where).toBe(want.challenge);
        const body = obj(reply);
        expect(Object.keys(body), where).toEqual(["detail"]);
        expect(typeof body.detail === "string" && body.detail !== "", where).toBe(true);
        if (want.detail !== undefined) expect(body.detail, where).toBe(want.detail);
        expect(await snapshot(op, path, collection), `${where}: a refused request changed nothing`).toEqual(before);
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Several schemes per requirement, and schemes other than OAuth2.

/** What a request's credentials are to one scheme asked for some scopes: the test's own knowledge of what it sent. */
type Verdict = "ok" | "missing" | "rejected" | "scope";
type Judge = (scheme: string, scopes: readonly string[]) => Verdict;

/** The scopes a known credential grants, judged against the scopes asked for; undefined: an unknown credential. */
const granting = (granted: readonly string[] | undefined, scopes: readonly string[]): Verdict =>
  granted === undefined ? "rejected" : scopes.every((scope) => granted.includes(scope)) ? "ok" : "scope";

/**
 * The invariant no cell may break (OpenAPI 3.1 "Security Requirement Object"): a request gets in
 * only when one requirement object has every scheme in it satisfied with its scopes; `{}` is such
 * an object, and no requirement at all is public.
 */
function mayEnter(security: readonly Requirement[], judge: Judge): boolean {
  return security.length === 0 || security.some((requirement) => Object.entries(requirement).every(([scheme, scopes]) => judge(scheme, scopes) === "ok"));
}

type Oracle = { readonly allowed: true; readonly anonymous: boolean } | { readonly allowed: false; readonly status: 401 | 403 };

/**
 * The expected answer. In: a requirement met (with a principal), or `{}` listed while nothing
 * that was sent was refused (http-behaviour: a credential sent but refused answers even where
 * anonymous access is allowed). Out, with the most telling failure among the schemes: a valid
 * credential lacking a scope (403), else a credential refused (401), else a missing one (401, or
 * 403 when only generic OAuth2 guards, `missingStatus`, were missing).
 */
function oracle(security: readonly Requirement[], judge: Judge, missingStatus: (scheme: string) => 401 | 403 = () => 401): Oracle {
  if (security.length === 0) return { allowed: true, anonymous: true };
  const named = security.filter((requirement) => Object.keys(requirement).length > 0);
  const verdicts = named.map((requirement) => Object.entries(requirement).map(([scheme, scopes]) => ({ scheme, verdict: judge(scheme, scopes) })));
  if (verdicts.some((requirement) => requirement.every((v) => v.verdict === "ok"))) return { allowed: true, anonymous: false };
  const failures = verdicts.flat().filter((v) => v.verdict !== "ok");
  if (named.length < security.length && failures.every((v) => v.verdict === "missing")) return { allowed: true, anonymous: true };
  if (failures.some((v) => v.verdict === "scope")) return { allowed: false, status: 403 };
  if (failures.some((v) => v.verdict === "rejected")) return { allowed: false, status: 401 };
  return { allowed: false, status: failures.some((v) => missingStatus(v.scheme) === 401) ? 401 : 403 };
}

/** Checks one cell: never in when no requirement lets it in; else exactly the oracle's answer. */
function expectCell(op: Operation, reply: Reply, judge: Judge, where: string, missingStatus?: (scheme: string) => 401 | 403): Oracle {
  if (reply.status >= 200 && reply.status < 300) {
    expect(mayEnter(op.security, judge), `${where}: let in, yet no requirement object is satisfied`).toBe(true);
  }
  const want = oracle(op.security, judge, missingStatus);
  if (want.allowed) {
    expect(reply.status, where).toBe(op.success);
  } else {
    expect(reply.status, where).toBe(want.status);
    expect(Object.keys(obj(reply)), where).toEqual(["detail"]);
  }
  return want;
}

describe("the oracle", () => {
  const judge: Judge = (scheme, scopes) => (scheme === "A" ? granting([], scopes) : "missing");
  it("reads AND inside a requirement and OR across them, and never lets in more than mayEnter", () => {
    expect(oracle([{ A: [], B: [] }], judge)).toEqual({ allowed: false, status: 401 });
    expect(oracle([{ A: ["s"] }], judge)).toEqual({ allowed: false, status: 403 });
    expect(oracle([{ A: [], B: [] }, { A: [] }], judge)).toEqual({ allowed: true, anonymous: false });
    expect(oracle([{ A: ["s"], B: [] }, {}], judge)).toEqual({ allowed: false, status: 403 });
    expect(oracle([{ A: [], B: [] }, {}], judge)).toEqual({ allowed: true, anonymous: true });
    expect(oracle([], judge)).toEqual({ allowed: true, anonymous: true });
    expect(mayEnter([{ A: [], B: [] }], judge)).toBe(false);
  });
});

// The blog's document, round-tripped: generated by codegen, edited, fed back. It keeps its
// `x-codegen-*` extensions, so its operations are resource operations.
const API_KEY = "X-API-Key";
function roundTripped(): Json {
  const doc = structuredClone(document);
  const schemes = (doc.components as { securitySchemes: { [name: string]: Json } }).securitySchemes;
  schemes.ApiKey = { type: "apiKey", in: "header", name: API_KEY };
  const paths = doc.paths as { [path: string]: { [method: string]: Json } };
  const article = paths["/articles/{id}"]!;
  article.delete!.security = [{ OAuth2PasswordBearer: ["articles:write"], ApiKey: [] }];
  article.patch!.security = [{ OAuth2PasswordBearer: ["articles:write"], ApiKey: [] }, { OAuth2AuthorizationCodeBearer: ["articles:read"] }];
  article.get!.security = [{ OAuth2PasswordBearer: ["articles:read"], ApiKey: [] }, {}];
  article.put!.security = [{ ApiKey: [] }, { OAuth2PasswordBearer: ["articles:write"] }];
  paths["/authors"]!.post!.security = [{ ApiKey: [] }];
  // An operation without `security` of its own takes the document's (OpenAPI 3.1), never none.
  delete paths["/authors/{id}"]!.put!.security;
  doc.security = [{ ApiKey: [] }, { OAuth2PasswordBearer: ["authors:write"] }];
  return doc;
}

describe("security matrix of the blog's document round-tripped with an API key (AND and OR, codegen's own operations)", () => {
  const doc = roundTripped();
  const blogOps = operations(doc);
  type Token = "none" | "non-bearer" | "never-issued" | readonly string[];
  type Key = "right" | "wrong" | "missing";
  const cells: { token: Token; key: Key }[] = [];
  for (const token of ["none", "non-bearer", "never-issued", ...subsets(scopes)] as Token[])
    for (const key of ["right", "wrong", "missing"] as Key[]) cells.push({ token, key });
  let roundServer: RunningServer;
  let at = "";
  let keyToken = "";
  let admin2 = "";
  const held = new Map<string, string>();

  beforeAll(async () => {
    roundServer = await startDeclaredServer(stringify(doc), [admin]);
    at = roundServer.url;
    admin2 = await issueToken(at, admin, scopes, "/token");
    // serve's hook takes a token of its issuer as an API key (docs/cli.md, "codegen serve"): one with no scope.
    keyToken = await issueToken(at, admin, [], "/token");
    for (const s of subsets(scopes)) held.set(s.join(" "), await issueToken(at, admin, s, "/token"));
  }, START_TIMEOUT);
  afterAll(() => roundServer?.close());

  const judgeOf =
    (cell: { token: Token; key: Key }): Judge =>
    (scheme, needed) => {
      if (scheme === "ApiKey") return cell.key === "missing" ? "missing" : granting(cell.key === "right" ? [] : undefined, needed);
      if (cell.token === "none" || cell.token === "non-bearer") return "missing";
      return granting(cell.token === "never-issued" ? undefined : cell.token, needed);
    };
  const headersOf = (cell: { token: Token; key: Key }): Record<string, string> => {
    const headers: Record<string, string> = {};
    if (cell.token === "non-bearer") headers.Authorization = "Basic cm9vdDpyb290IHB3";
    else if (cell.token === "never-issued") headers.Authorization = "Bearer never-issued-token";
    else if (cell.token !== "none") headers.Authorization = `Bearer ${held.get(cell.token.join(" "))!}`;
    if (cell.key !== "missing") headers[API_KEY] = cell.key === "right" ? keyToken : "wrong-key";
    return headers;
  };
  const full = () => ({ Authorization: `Bearer ${admin2}`, [API_KEY]: keyToken });

  it("is still codegen's document, and has every kind of requirement", () => {
    const article = (doc.paths as { [path: string]: { [method: string]: Json } })["/articles/{id}"]!;
    expect(article.delete!["x-codegen-operation"]).toBe("delete");
    expect(blogOps.find((op) => op.operationId === "replaceAuthor")!.security).toEqual(doc.security);
    expect(blogOps.some((op) => op.security.some((r) => Object.keys(r).length > 1))).toBe(true);
    expect(blogOps.some((op) => op.security.length > 1 && op.security.some((r) => Object.keys(r).length > 1))).toBe(true);
    expect(blogOps.some((op) => op.security.some((r) => Object.keys(r).length === 0) && op.security.some((r) => Object.keys(r).length > 1))).toBe(true);
    expect(cells).toHaveLength(33);
  });

  it("DELETE /articles/{id} with [{OAuth2PasswordBearer: [articles:write], ApiKey: []}]: a scope-less token and no key do not get 204", async () => {
    const created = await call(at, "POST", "/articles", { json: { title: "t" }, headers: full() });
    expect(created.status, created.text).toBe(201);
    const target = `/articles/${String(obj(created).id)}`;
    const refused = await call(at, "DELETE", target, { headers: { Authorization: `Bearer ${held.get("")!}` } });
    expect(refused.status, refused.text).toBe(403);
    // A bearer token in place of the API key is no API key.
    const bearerOnly = await call(at, "DELETE", target, { headers: { Authorization: `Bearer ${admin2}` } });
    expect(bearerOnly.status, bearerOnly.text).toBe(401);
    expect((await call(at, "GET", target, { headers: full() })).status).toBe(200);
    expect((await call(at, "DELETE", target, { headers: full() })).status).toBe(204);
  });

  it.each(blogOps.map((op) => [`${op.method} ${op.path} (${op.operationId})`, op] as const))("%s", async (_, op) => {
    const collection = op.path.split("/")[1] ?? "";
    const outcomes = new Set<string>();
    for (const cell of cells) {
      let path = op.path;
      if (op.path.includes("{id}")) {
        const create = blogOps.find((o) => o.path === `/${collection}` && o.method === "POST")!;
        const created = await call(at, "POST", `/${collection}`, { json: sample(create.body!.schema), headers: full() });
        expect(created.status, created.text).toBe(201);
        path = op.path.replace("{id}", String(obj(created).id));
      }
      const look = async () =>
        op.path.includes("{id}")
          ? (await call(at, "GET", path, { headers: full() })).body
          : op.method === "POST" && collection !== "token"
            ? list(await call(at, "GET", `/${collection}`, { headers: full() })).length
            : undefined;
      const before = await look();
      const reply = await request(at, op, path, headersOf(cell));
      const where = `${op.method} ${path} with token ${JSON.stringify(cell.token)} and the ${cell.key} key: ${reply.status} ${reply.text}`;
      const want = expectCell(op, reply, judgeOf(cell), where);
      outcomes.add(want.allowed ? "in" : "out");
      if (!want.allowed) expect(await look(), `${where}: a refused request changed nothing`).toEqual(before);
    }
    // Every operation has cells let in; every secured one cells refused.
    expect([...outcomes].sort()).toEqual(op.security.length === 0 ? ["in"] : ["in", "out"]);
  });
});

// A document written by others: every kind of scheme, combined with AND and OR.
const BASIC_RIGHT = `Basic ${Buffer.from("ann:secret").toString("base64")}`;
const BASIC_WRONG = `Basic ${Buffer.from("ann:wrong").toString("base64")}`;
const FOREIGN_TOKENS: { [token: string]: readonly string[] } = { "t-none": [], "t-read": ["read"], "t-write": ["write"], "t-rw": ["read", "write"] };
/** The right key of each API-key scheme and the scopes (roles) of its principal. */
const KEYS: { [scheme: string]: { right: string; scopes: readonly string[] } } = {
  hk: { right: "hk-right", scopes: ["admin"] },
  qk: { right: "qk-right", scopes: [] },
  ck: { right: "ck-right", scopes: [] },
};

const foreignOperation = (operationId: string, security: Requirement[] | undefined, status = 200): Json => ({
  tags: ["keys"],
  operationId,
  ...(security === undefined ? {} : { security }),
  responses: {
    [String(status)]: status === 204 ? { description: "Done." } : { description: "Done.", content: { "application/json": { schema: { type: "object" } } } },
  },
});
const foreignDocument: Json = {
  openapi: "3.1.0",
  info: { title: "Keys", version: "1" },
  security: [{ bearer: [] }, { ck: [] }],
  components: {
    securitySchemes: {
      bearer: { type: "http", scheme: "bearer" },
      oauth: { type: "oauth2", flows: { password: { tokenUrl: "/token", scopes: { read: "Read", write: "Write" } } } },
      cc: { type: "oauth2", flows: { clientCredentials: { tokenUrl: "https://id.example.com/token", scopes: { read: "Read" } } } },
      basic: { type: "http", scheme: "basic" },
      hk: { type: "apiKey", in: "header", name: "X-API-Key" },
      qk: { type: "apiKey", in: "query", name: "api_key" },
      ck: { type: "apiKey", in: "cookie", name: "session" },
    },
  },
  paths: {
    "/a": { get: foreignOperation("a", [{ oauth: ["write"], hk: [] }]), delete: foreignOperation("removeA", [{ hk: ["admin"] }], 204) },
    "/b": { get: foreignOperation("b", [{ oauth: ["read"] }, { qk: [] }]) },
    "/c": {
      get: foreignOperation("c", [
        { bearer: [], ck: [] },
        { hk: [], qk: [] },
      ]),
    },
    "/d": { get: foreignOperation("d", [{ oauth: ["write"], ck: [] }, {}]) },
    "/e": { get: foreignOperation("e", [{ basic: [], hk: [] }, { cc: ["read"] }]) },
    "/f": { get: foreignOperation("f", undefined) },
    "/g": { get: foreignOperation("g", []) },
    "/h": { get: foreignOperation("h", [{ qk: ["admin"] }, { hk: ["admin"] }]) },
  },
};

describe("security matrix of a document written by others: API keys in a header, the query and a cookie, HTTP bearer and Basic, OAuth2 with scopes", () => {
  const foreignOps = operations(foreignDocument);
  const authorizations = [undefined, BASIC_RIGHT, BASIC_WRONG, "Bearer bogus", "Bearer", ...Object.keys(FOREIGN_TOKENS).map((t) => `Bearer ${t}`)];
  const keyValues = (scheme: string) => [undefined, KEYS[scheme]!.right, "wrong"];
  type Cell = { authorization: string | undefined; hk: string | undefined; qk: string | undefined; ck: string | undefined };
  let httpServer: Server;
  let at = "";
  let dispose = async () => {};
  const handled: { operationId: string; principal: unknown }[] = [];

  const judgeOf =
    (cell: Cell): Judge =>
    (scheme, needed) => {
      const authorization = cell.authorization;
      switch (scheme) {
        case "bearer":
        case "oauth": {
          const space = authorization?.indexOf(" ") ?? -1;
          const word = authorization === undefined ? "" : space === -1 ? authorization : authorization.slice(0, space);
          if (word.toLowerCase() !== "bearer") return "missing";
          const token = space === -1 ? "" : authorization!.slice(space + 1).trim();
          return granting(Object.hasOwn(FOREIGN_TOKENS, token) ? FOREIGN_TOKENS[token] : undefined, needed);
        }
        case "cc": {
          // The generic OAuth2 guard: the whole header is the credential.
          if (authorization === undefined || authorization === "") return "missing";
          const token = authorization.replace(/^bearer /i, "");
          return granting(Object.hasOwn(FOREIGN_TOKENS, token) ? FOREIGN_TOKENS[token] : undefined, needed);
        }
        case "basic":
          if (!authorization?.startsWith("Basic ")) return "missing";
          return granting(authorization === BASIC_RIGHT ? [] : undefined, needed);
        default: {
          const sent = cell[scheme as "hk" | "qk" | "ck"];
          if (sent === undefined) return "missing";
          return granting(sent === KEYS[scheme]!.right ? KEYS[scheme]!.scopes : undefined, needed);
        }
      }
    };

  beforeAll(async () => {
    const compiled = await compileText(stringify(foreignDocument));
    dispose = compiled.dispose;
    const handler = (operationId: string) => (input: Json) => {
      handled.push({ operationId, principal: input.principal });
      return operationId === "removeA" ? { status: 204 } : { status: 200, body: { operationId } };
    };
    const key = (scheme: string) => (input: { value: string | undefined }) =>
      input.value === KEYS[scheme]!.right ? { subject: scheme, scopes: KEYS[scheme]!.scopes } : undefined;
    httpServer = compiled.api.createServer({
      handlers: { keys: new Proxy({}, { get: (_, operationId) => handler(String(operationId)) }) },
      verifyToken: (token, _scopes, guard) => {
        const bare = guard.kind === "oauth2" ? token.replace(/^bearer /i, "") : token;
        return Object.hasOwn(FOREIGN_TOKENS, bare) ? { subject: bare, scopes: FOREIGN_TOKENS[bare] } : undefined;
      },
      securityHooks: {
        hk: key("hk"),
        qk: key("qk"),
        ck: key("ck"),
        basic: ({ value }) => (`Basic ${value ?? ""}` === BASIC_RIGHT ? { subject: "ann", scopes: [] } : undefined),
      },
    });
    await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
    at = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  }, START_TIMEOUT);
  afterAll(async () => {
    httpServer?.closeAllConnections();
    await new Promise((resolve) => httpServer?.close(resolve));
    await dispose();
  });

  it("has AND and OR, `{}`, the document's security, public, roles and every kind of scheme", () => {
    expect(foreignOps.map((op) => op.operationId).sort()).toEqual(["a", "b", "c", "d", "e", "f", "g", "h", "removeA"]);
    expect(foreignOps.find((op) => op.operationId === "f")!.security).toEqual(foreignDocument.security);
    const named = new Set(foreignOps.flatMap((op) => op.security.flatMap((r) => Object.keys(r))));
    expect([...named].sort()).toEqual(Object.keys((foreignDocument.components as { securitySchemes: Json }).securitySchemes).sort());
  });

  it.each(foreignOps.map((op) => [`${op.method} ${op.path} (${op.security.map((r) => JSON.stringify(r)).join(" OR ") || "public"})`, op] as const))(
    "%s",
    async (_, op) => {
      const named = new Set(op.security.flatMap((r) => Object.keys(r)));
      // Why: a query parameter the operation does not read is a 400 after the security check; the
      // query key is varied only where a requirement reads it.
      const queryKeys = named.has("qk") ? keyValues("qk") : [undefined];
      let cells = 0;
      const outcomes = new Set<string>();
      for (const authorization of authorizations) {
        for (const hk of keyValues("hk")) {
          for (const qk of queryKeys) {
            for (const ck of keyValues("ck")) {
              const cell: Cell = { authorization, hk, qk, ck };
              const headers: Record<string, string> = {};
              if (authorization !== undefined) headers.Authorization = authorization;
              if (hk !== undefined) headers["X-API-Key"] = hk;
              if (ck !== undefined) headers.Cookie = `session=${ck}`;
              const path = qk === undefined ? op.path : `${op.path}?api_key=${qk}`;
              handled.length = 0;
              const reply = await call(at, op.method, path, { headers });
              const where = `${op.method} ${path} with ${JSON.stringify(cell)}: ${reply.status} ${reply.text}`;
              const want = expectCell(op, reply, judgeOf(cell), where, (scheme) => (scheme === "cc" ? 403 : 401));
              outcomes.add(want.allowed ? (want.anonymous ? "anonymous" : "in") : String(want.status));
              if (want.allowed) {
                expect(
                  handled.map((h) => h.operationId),
                  where,
                ).toEqual([op.operationId]);
                // The principal comes from a requirement met in full, never from part of one.
                expect(handled[0]!.principal !== undefined, `${where}: principal`).toBe(!want.anonymous);
              } else {
                expect(handled, `${where}: the handler did not run`).toEqual([]);
              }
              cells++;
            }
          }
        }
      }
      expect(cells).toBe(authorizations.length * 9 * queryKeys.length);
      // No vacuous row: a secured operation is both entered with a principal and refused.
      if (op.security.length > 0) expect([...outcomes], op.operationId).toEqual(expect.arrayContaining(["in", "401"]));
    },
  );
});

describe("a requirement the runtime cannot enforce is refused at generation, at its place", () => {
  it("a round-tripped codegen document naming a scheme it does not define, or an HTTP scheme that is no token", async () => {
    const doc = roundTripped();
    const article = (doc.paths as { [path: string]: { [method: string]: Json } })["/articles/{id}"]!;
    article.delete!.security = [{ OAuth2PasswordBearer: ["articles:write"] }, { Nowhere: [] }];
    (doc.components as { securitySchemes: Json }).securitySchemes = {
      ...(doc.components as { securitySchemes: Json }).securitySchemes,
      Odd: { type: "http", scheme: "not a token" },
    };
    article.patch!.security = [{ Odd: [] }];
    const text = stringify(doc);
    const result = await generateText(text);
    expect(result.value).toBeUndefined();
    const lines = text.split("\n");
    const found = result.diagnostics.map((d) => ({ code: d.code, message: d.message, line: d.location?.line }));
    expect(found).toEqual([
      {
        code: "openapi/unsupported",
        message: 'cannot render #/paths/~1articles~1{id}/delete/security/1: the security scheme "Nowhere" is not defined in components/securitySchemes',
        line: expect.any(Number),
      },
      {
        code: "openapi/unsupported",
        message:
          'cannot render #/paths/~1articles~1{id}/patch/security/0: the security scheme "Odd" names no HTTP authentication scheme in `scheme`; codegen cannot check it, and never lets requests in unchecked',
        line: expect.any(Number),
      },
    ]);
    // Each at its requirement's line of the document.
    expect(lines[found[0]!.line! - 1]).toMatch(/^\s*- Nowhere: \[\]$/);
    expect(lines[found[1]!.line! - 1]).toMatch(/^\s*- Odd: \[\]$/);
  });
});

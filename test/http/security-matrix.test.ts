// The security matrix of the blog fixture: every operation of its OpenAPI document, called with
// no credential, a non-bearer header, a token the issuer never issued, and a valid token for
// each subset of the blog's scopes. The expected outcome is computed from the operation's
// `security` (public `[]`; optional: `{}` among the requirements; scoped: every scope of one
// requirement held), never written per row; a refused request must change nothing.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/serve/serve.js";
import { startFixtureServer } from "../support/generated.js";
import { START_TIMEOUT, call, fixtureDocument, form, issueToken, list, obj } from "./support.js";
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

/** Every operation of the document, with its effective security (its own, else the document's). */
function operations(): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths as { [path: string]: Json })) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const security = (op.security ?? document.security) as Requirement[] | undefined;
      if (security === undefined) throw new Error(`${method} ${path} has no security at all`);
      const statuses = Object.keys(op.responses as Json).map(Number);
      const success = Math.min(...statuses.filter((s) => s >= 200 && s < 300));
      const content = (op.requestBody as { content?: { [type: string]: { schema: Json } } } | undefined)?.content;
      const [type, media] = Object.entries(content ?? {})[0] ?? [];
      found.push({ operationId: op.operationId as string, method: method.toUpperCase(), path, security, success, statuses, ...(type && media ? { body: { type, schema: media.schema } } : {}) });
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

type Credential = { readonly label: string; readonly header?: string } & ({ readonly kind: "none" | "non-bearer" | "never-issued" } | { readonly kind: "token"; readonly scopes: readonly string[] });

type Expected = { readonly outcome: "allowed" } | { readonly outcome: "refused"; readonly status: 401 | 403; readonly challenge: string; readonly detail?: string };

/** What `security` says of a credential (http-behaviour "Errors" and declaration "Access"). */
function expectedOutcome(security: readonly Requirement[], credential: Credential): Expected {
  if (security.length === 0) return { outcome: "allowed" };
  const optional = security.some((requirement) => Object.keys(requirement).length === 0);
  const scoped = security.filter((requirement) => Object.keys(requirement).length > 0);
  const bearerOnly = scoped.every((requirement) => Object.keys(requirement).every((scheme) => components.securitySchemes[scheme]?.["x-codegen-guard"] !== "oauth2"));
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
  const headers: Record<string, string> = header === undefined ? {} : { Authorization: header };
  if (!op.body) return call(base, op.method, path, { headers });
  if (op.body.type === "application/x-www-form-urlencoded") {
    const body = form([["grant_type", "password"], ["username", admin.name], ["password", admin.password]]);
    return call(base, op.method, path, { body, headers: { ...headers, "Content-Type": op.body.type } });
  }
  return call(base, op.method, path, { json: sample(op.body.schema), headers });
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
      ["createArticle", "createAuthor", "deleteArticle", "deleteAuthor", "getArticle", "getAuthor", "getIndex", "issueToken", "listArticles", "listAuthors", "replaceArticle", "replaceAuthor", "updateArticle", "updateAuthor"].sort(),
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

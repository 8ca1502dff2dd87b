// JWT guards end to end: the guard-password fixture's generated server, compiled and started with
// its own exports `verifyToken: verifyJwt(...)` and `issueToken: issueJwt(...)`, spoken to over
// HTTP on 127.0.0.1. A token from its token endpoint is accepted, a tampered one is 401, one
// lacking a scope 403, a token from the provider's JWKS (minted by jose) is accepted too.

import { generateKeyPairSync } from "node:crypto";
import { createServer } from "node:http";
import type { Server } from "node:http";
import { SignJWT, exportJWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen, stop } from "../runtime/wire.js";
import { START_TIMEOUT, call, compileFixture, expectAuthError, expectError, form, obj, postForm } from "./support.js";
import type { CompiledApi, Json } from "./support.js";

/** The JWT exports of the compiled index.gen.js, as far as this test uses them. */
type JwtExports = {
  verifyJwt(options: Json): (token: string, scopes: Json, guard: Json) => Promise<unknown>;
  issueJwt(options: Json): (request: Json) => unknown;
};

const ISSUER = "https://tasks.example.com/";
const AUDIENCE = "tasks-api";
const signing = generateKeyPairSync("ec", { namedCurve: "P-256" });
const provider = generateKeyPairSync("rsa", { modulusLength: 2048 });

let compiled: { api: CompiledApi; dispose(): Promise<void> };
let server: Server;
let jwksServer: Server;
let base = "";

beforeAll(async () => {
  compiled = await compileFixture("guard-password");
  const { verifyJwt, issueJwt } = compiled.api as unknown as JwtExports;
  const jwk = { ...(await exportJWK(provider.publicKey)), kid: "provider-1" };
  jwksServer = createServer((_req, res) => res.setHeader("Content-Type", "application/json").end(JSON.stringify({ keys: [jwk] })));
  const jwksPort = await listen(jwksServer);
  // Two verifiers: the server's own tokens (ES256, key pinned) and the provider's (RS256, JWKS).
  const own = verifyJwt({ issuer: ISSUER, audience: AUDIENCE, algorithms: ["ES256"], publicKey: signing.publicKey });
  const external = verifyJwt({
    issuer: "https://id.example.com/",
    audience: AUDIENCE,
    algorithms: ["RS256"],
    jwksUrl: `http://127.0.0.1:${jwksPort}/.well-known/jwks.json`,
    jwksAllowLoopbackHttp: true,
  });
  const users: Record<string, { password: string; scopes: string[] }> = { ann: { password: "secret", scopes: ["tasks:read"] } };
  server = compiled.api.createServer({
    handlers: compiled.api.createMemoryHandlers(),
    verifyToken: async (token, scopes, guard) => (await own(token, scopes, guard)) ?? external(token, scopes, guard),
    issueToken: issueJwt({
      authenticate: (username: string, password: string) =>
        Object.hasOwn(users, username) && users[username]!.password === password ? { subject: username, scopes: users[username]!.scopes } : undefined,
      algorithm: "ES256",
      privateKey: signing.privateKey,
      issuer: ISSUER,
      audience: AUDIENCE,
      lifetimeSeconds: 300,
    }),
  });
  base = `http://127.0.0.1:${await listen(server)}`;
}, START_TIMEOUT);

afterAll(async () => {
  if (server) await stop(server);
  if (jwksServer) await stop(jwksServer);
  await compiled?.dispose();
});

async function login(scope: string, password = "secret"): Promise<ReturnType<typeof postForm>> {
  return postForm(
    base,
    "/oauth/token",
    form([
      ["username", "ann"],
      ["password", password],
      ["scope", scope],
    ]),
  );
}

describe("verifyJwt and issueJwt in a generated server", () => {
  it("issues a JWT at the token endpoint, and the server accepts it", async () => {
    const reply = await login("tasks:read");
    expect(reply.status, reply.text).toBe(200);
    const body = obj(reply);
    expect(body).toMatchObject({ token_type: "Bearer", expires_in: 300, scope: "tasks:read" });
    expect(String(body.access_token).split(".")).toHaveLength(3);
    const list = await call(base, "GET", "/tasks", { token: String(body.access_token) });
    expect(list.status, list.text).toBe(200);
  });

  it("answers 401 for a tampered token, and for none", async () => {
    const token = String(obj(await login("tasks:read")).access_token);
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Json;
    const forged = Buffer.from(JSON.stringify({ ...claims, scope: "tasks:read tasks:write" })).toString("base64url");
    expectAuthError(await call(base, "GET", "/tasks", { token: `${header}.${forged}.${signature}` }), 401, "Bearer", "Could not validate credentials");
    expectAuthError(await call(base, "GET", "/tasks"), 401, "Bearer", "Not authenticated");
  });

  it("answers 403 insufficient_scope for a valid token lacking the scope", async () => {
    const token = String(obj(await login("tasks:read")).access_token);
    const reply = await call(base, "POST", "/tasks", { token, json: { title: "write me" } });
    expectAuthError(reply, 403, 'Bearer error="insufficient_scope", scope="tasks:write"');
  });

  it("answers invalid_grant and invalid_scope from the token endpoint", async () => {
    expectError(await login("tasks:read", "wrong"), 400);
    expect(obj(await login("tasks:read", "wrong")).error).toBe("invalid_grant");
    expect(obj(await login("tasks:write")).error).toBe("invalid_scope");
  });

  it("accepts an identity provider's token (JWKS) with the scope, and refuses it signed by another key", async () => {
    const mint = (key: typeof provider.privateKey) =>
      new SignJWT({ scope: "tasks:read tasks:write" })
        .setProtectedHeader({ alg: "RS256", kid: "provider-1" })
        .setIssuer("https://id.example.com/")
        .setAudience(AUDIENCE)
        .setSubject("auth0|ann")
        .setExpirationTime("5m")
        .sign(key);
    const created = await call(base, "POST", "/tasks", { token: await mint(provider.privateKey), json: { title: "from the provider" } });
    expect(created.status, created.text).toBe(201);
    const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
    expectAuthError(await call(base, "POST", "/tasks", { token: await mint(stranger), json: { title: "x" } }), 401, "Bearer");
  });
});

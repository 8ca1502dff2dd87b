// Scale out with JWT guards: two generated lending servers, each with its own pg pool on
// one PostgreSQL database and configured as docs/http-behaviour.md ("The PostgreSQL store") says for several instances: tokens
// signed by `issueJwt` and checked by `verifyJwt` under one shared key pair, and one shared
// `cursorKey`. A token issued by instance A's token endpoint is accepted by instance B, an object
// created through A is read through B with it, and a page's `next` link from A is followed on B.

import { generateKeyPairSync } from "node:crypto";
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen, stop } from "../runtime/wire.js";
import { START_TIMEOUT, type Json, call, compileFixture, form, obj, postForm } from "../http/support.js";
import type { CompiledApi } from "../http/support.js";
import { type PostgresServer, postgresSkipReason, startPostgres } from "./server.js";

/** A pg-shaped query function: what createPostgresStore and migrate take. */
type Query = (text: string, params?: unknown[]) => Promise<{ rows: Json[] }>;

/** The exports of the compiled lending index.gen.js this test uses beside CompiledApi's. */
type Exports = {
  verifyJwt(options: Json): (token: string, scopes: Json, guard: Json) => Promise<unknown>;
  issueJwt(options: Json): (request: Json) => unknown;
  createPostgresStore(options: { query: Query }): ReturnType<CompiledApi["createMemoryHandlers"]>;
  migrate(options: { query: Query }): Promise<string[]>;
};

const skip = postgresSkipReason();
const tokens = { issuer: "https://lending.example.org/", audience: "lending-api" };
const user = { subject: "ann", password: "secret", scopes: ["library:read", "library:write", "loans:write"] };

describe.skipIf(skip !== undefined)(`two instances on one PostgreSQL server share JWTs and cursors${skip ? ` (${skip})` : ""}`, () => {
  let postgres: PostgresServer;
  let compiled: Awaited<ReturnType<typeof compileFixture>>;
  const pools: { end(): Promise<void> }[] = [];
  const servers: Server[] = [];
  /** Each instance's base URL (the lending document's server path, /v1). */
  const bases: string[] = [];

  beforeAll(async () => {
    postgres = await startPostgres();
    const url = await postgres.createDatabase("lending_jwt");
    compiled = await compileFixture("lending");
    const api = compiled.api as CompiledApi & Exports;
    const { default: pg } = await import("pg");
    // One key pair and one cursor key for both instances, as a deployment hands them out.
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const cursorKey = "a cursor key shared by every instance";
    for (let i = 0; i < 2; i++) {
      const pool = new pg.Pool({ connectionString: url, max: 4 });
      pools.push(pool);
      const query: Query = (text, params) => pool.query(text, params);
      // Both migrate at start, as each instance of a deployment would: the second finds nothing to do.
      expect(await api.migrate({ query })).toEqual(i === 0 ? ["0001_initial"] : []);
      const server = api.createServer({
        handlers: api.createPostgresStore({ query }),
        verifyToken: api.verifyJwt({ ...tokens, algorithms: ["ES256"], publicKey }),
        issueToken: api.issueJwt({
          ...tokens,
          algorithm: "ES256",
          privateKey,
          authenticate: (username: string, password: string) =>
            username === user.subject && password === user.password ? { subject: user.subject, scopes: user.scopes } : undefined,
        }),
        cursorKey,
      });
      servers.push(server);
      bases.push(`http://127.0.0.1:${await listen(server)}/v1`);
    }
  }, START_TIMEOUT);

  afterAll(async () => {
    for (const server of servers) await stop(server);
    for (const pool of pools) await pool.end();
    await compiled?.dispose();
    await postgres?.stop();
  });

  /** A token from instance `at`'s token endpoint (POST /v1/token). */
  async function login(at: number): Promise<string> {
    const reply = await postForm(
      bases[at]!,
      "/token",
      form([
        ["grant_type", "password"],
        ["username", user.subject],
        ["password", user.password],
        ["scope", user.scopes.join(" ")],
      ]),
    );
    expect(reply.status, reply.text).toBe(200);
    return obj(reply).access_token as string;
  }

  it("a token issued by one instance is accepted by the other, and an object created through one is read through the other", async () => {
    const [a, b] = bases as [string, string];
    const token = await login(0);
    // A JWT: three base64url parts, not an opaque token of A's memory.
    expect(token.split(".")).toHaveLength(3);
    const member = await call(a, "POST", "/members", { token, json: { name: "Ann", email: "ann@example.org" } });
    expect(member.status, member.text).toBe(201);
    const read = await call(b, "GET", `/members/${String(obj(member).id)}`, { token });
    expect(read.status, read.text).toBe(200);
    expect(obj(read)).toMatchObject({ id: obj(member).id, name: "Ann" });
    // And the other way round: B's token writes through B what A then reads with it.
    const other = await login(1);
    const book = await call(b, "POST", "/books", { token: other, json: { title: "Dune", author: "Herbert" } });
    expect(book.status, book.text).toBe(201);
    const loan = await call(a, "POST", "/loans", { token: other, json: { bookId: obj(book).id, memberId: obj(member).id, dueOn: "2030-01-01" } });
    expect(loan.status, loan.text).toBe(201);
    expect(obj(await call(b, "GET", `/loans/${String(obj(loan).id)}`, { token })).status).toBe("active");
    // A token the shared key did not sign is refused by both.
    const [header, payload] = token.split(".");
    for (const base of bases) expect((await call(base, "GET", "/members", { token: `${header}.${payload}.AAAA` })).status).toBe(401);
  });

  it("a page's next link from one instance is followed on the other (shared cursorKey)", async () => {
    const token = await login(0);
    for (const title of ["Emma", "Persuasion", "Sanditon"])
      expect((await call(bases[0]!, "POST", "/books", { token, json: { title, author: "Austen" } })).status).toBe(201);
    const first = await call(bases[0]!, "GET", "/books?author=Austen&sort=title&limit=2");
    expect(first.status, first.text).toBe(200);
    expect((first.body as Json[]).map((book) => book.title)).toEqual(["Emma", "Persuasion"]);
    const next = /<([^>]+)>;\s*rel="next"/.exec(first.headers.get("link") ?? "")?.[1];
    expect(next).toBeDefined();
    // The link as A wrote it, asked of B: same path and query, B's address.
    const target = new URL(next!, bases[0]);
    const second = await call(new URL(bases[1]!).origin, "GET", target.pathname + target.search);
    expect(second.status, second.text).toBe(200);
    expect((second.body as Json[]).map((book) => book.title)).toEqual(["Sanditon"]);
  });
});

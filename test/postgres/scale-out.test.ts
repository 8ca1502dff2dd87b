// Two generated server instances on one PostgreSQL database are one API.
// An object created through one is read, listed and transitioned through the other, and many
// concurrent transitions of one object through both apply exactly as the status machine allows
// (the UPDATE is guarded by the status the server checked; a lost race answers 409). Also: a
// PGlite folder (`serve --db DIR`) keeps the data across a restart.

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../src/postgres/database.js";
import { type RunningServer, serveFiles } from "../../src/serve/serve.js";
import { call, issueToken, obj } from "../http/support.js";
import { generateFixture } from "../support/generated.js";
import { type PostgresServer, postgresSkipReason, startPostgres } from "./server.js";

const user = { name: "ann", password: "secret", scopes: ["library:read", "library:write", "loans:write"] };
const skip = postgresSkipReason();

/** The API's base URL on a served instance: its address and the base path of the document's server URL (lending: `/v1`). */
const base = (server: RunningServer) => server.url + server.basePath;

describe.skipIf(skip !== undefined)(`two instances on one PostgreSQL server${skip ? ` (${skip})` : ""}`, () => {
  let postgres: PostgresServer;
  const databases: Database[] = [];
  const servers: RunningServer[] = [];
  const tokens: string[] = [];

  beforeAll(async () => {
    postgres = await startPostgres();
    const url = await postgres.createDatabase("lending");
    const files = await generateFixture("lending");
    for (let i = 0; i < 2; i++) {
      const database = await openDatabase(url, process.cwd());
      databases.push(database);
      const server = await serveFiles(files, { port: 0, host: "127.0.0.1", users: [user], database });
      servers.push(server);
      // Tokens of serve's issuer are each instance's own (shared JWTs: scale-out-jwt.test.ts).
      tokens.push(await issueToken(base(server), user, user.scopes));
    }
  }, 120_000);

  afterAll(async () => {
    for (const server of servers) await server.close();
    for (const database of databases) await database.close();
    await postgres?.stop();
  });

  /** Creates a loan (with its book and member) through instance `at`. */
  async function newLoan(at: number): Promise<{ id: number; href: string }> {
    const [url, token] = [base(servers[at]!), tokens[at]!];
    const book = obj(await call(url, "POST", "/books", { token, json: { title: "Dune", author: "Herbert" } }));
    const member = obj(await call(url, "POST", "/members", { token, json: { name: "Ann", email: "ann@example.org" } }));
    const loan = await call(url, "POST", "/loans", { token, json: { bookId: book.id, memberId: member.id, dueOn: "2030-01-01" } });
    expect(loan.status, loan.text).toBe(201);
    return { id: obj(loan).id as number, href: `/loans/${String(obj(loan).id)}` };
  }

  it("an object created through one instance is read, listed and transitioned through the other", async () => {
    const loan = await newLoan(0);
    const [b, token] = [base(servers[1]!), tokens[1]!];
    const read = await call(b, "GET", loan.href, { token });
    expect(read.status, read.text).toBe(200);
    expect(obj(read).status).toBe("active");
    const listed = await call(b, "GET", "/loans?status=active&limit=100", { token });
    expect((listed.body as { id: number }[]).map((l) => l.id)).toContain(loan.id);
    const returned = await call(b, "POST", `${loan.href}/return`, { token });
    expect(returned.status, returned.text).toBe(200);
    expect(obj(await call(base(servers[0]!), "GET", loan.href, { token: tokens[0]! })).status).toBe("returned");
  });

  it("of many concurrent transitions from one state through both instances, exactly the allowed ones apply", async () => {
    for (let round = 0; round < 5; round++) {
      const loan = await newLoan(round % 2);
      // 16 `report-lost` (active -> lost) and 16 `return` (active, overdue or lost -> returned) at once.
      const requests = Array.from({ length: 32 }, (_, i) => ({ action: i % 2 === 0 ? "report-lost" : "return", at: Math.floor(i / 2) % 2 }));
      const replies = await Promise.all(
        requests.map(({ action, at }) => call(base(servers[at]!), action === "report-lost" ? "PUT" : "POST", `${loan.href}/${action}`, { token: tokens[at]! })),
      );
      for (const reply of replies) expect([200, 409], reply.text).toContain(reply.status);
      const won = (action: string) => replies.filter((r, i) => requests[i]!.action === action && r.status === 200).length;
      const final = obj(await call(base(servers[0]!), "GET", loan.href, { token: tokens[0]! })).status;
      // Each action can apply once (report-lost only from active; return leaves a final state), and
      // the final state is the last one applied: no transition was lost or applied twice.
      expect(won("report-lost")).toBeLessThanOrEqual(1);
      expect(won("return")).toBeLessThanOrEqual(1);
      expect(won("report-lost") + won("return")).toBeGreaterThanOrEqual(1);
      expect(final).toBe(won("return") === 1 ? "returned" : "lost");
      // Every answer that succeeded shows the state it left, as the store holds it.
      for (const [i, reply] of replies.entries()) {
        if (reply.status === 200) expect(obj(reply).status).toBe(requests[i]!.action === "return" ? "returned" : "lost");
      }
      // A 409 of a lost race names the change that came first.
      for (const reply of replies.filter((r) => r.status === 409)) expect(typeof obj(reply).detail).toBe("object");
    }
  });

  it("concurrent PATCHes of one status through both instances: one applies, the others answer 409", async () => {
    const loan = await newLoan(0);
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(base(servers[i % 2]!), "PATCH", loan.href, { token: tokens[i % 2]!, json: { status: i % 4 < 2 ? "overdue" : "lost" } }),
      ),
    );
    for (const reply of replies) expect([200, 409], reply.text).toContain(reply.status);
    const applied = replies.filter((r) => r.status === 200).map((r) => obj(r).status);
    const final = obj(await call(base(servers[1]!), "GET", loan.href, { token: tokens[1]! })).status;
    // From active both overdue and lost may follow; from lost nothing but returned, and
    // overdue -> lost is allowed: whatever applied, the stored state is the last answered one.
    expect(applied.length).toBeGreaterThanOrEqual(1);
    expect(["overdue", "lost"]).toContain(final);
    if (applied.includes("lost")) expect(final).toBe("lost");
  });
});

describe("serve --db DIR (PGlite)", () => {
  it("keeps the objects across a restart", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "codegen-pglite-"));
    try {
      const files = await generateFixture("lending");
      const start = async () => {
        const database = await openDatabase(path.join(dir, "data"), process.cwd());
        const server = await serveFiles(files, { port: 0, host: "127.0.0.1", users: [user], database });
        return { server, database, token: await issueToken(base(server), user, user.scopes) };
      };
      const first = await start();
      const created = await call(base(first.server), "POST", "/books", { token: first.token, json: { title: "Emma", author: "Austen" } });
      expect(created.status, created.text).toBe(201);
      await first.server.close();
      await first.database.close();
      const second = await start();
      try {
        const read = await call(base(second.server), "GET", `/books/${String(obj(created).id)}`, { token: second.token });
        expect(read.status, read.text).toBe(200);
        expect(obj(read).title).toBe("Emma");
      } finally {
        await second.server.close();
        await second.database.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

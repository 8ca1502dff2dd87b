// Many slow clients against the generated blog server (README "Choices where the contract is
// silent"): hundreds of connections each sending most of a 1 MiB body to the token endpoint and
// stalling. The bytes the server buffers across all requests stay within `maxBufferedBytes`
// (beyond it: 503, Retry-After, connection closed), every request gives its bytes back however it
// ends (served, refused, timed out, client gone), and the server keeps answering. `maxConnections`
// bounds the connections it keeps.

import type { Server } from "node:http";
import { connect } from "node:net";
import type { Socket } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { START_TIMEOUT, compileFixture } from "../http/support.js";
import { listen, stop } from "../runtime/wire.js";

const MiB = 1024 * 1024;
/** The defaults of runtime/http.gen.ts the test relies on: the body limit and the budget. */
const BODY_LIMIT = MiB;
const BUDGET = 64 * MiB;
/** Slow clients: each announces a 1 MiB form and sends all but its last KiB. */
const CLIENTS = 400;
const SENT = BODY_LIMIT - 1024;

let compiled: Awaited<ReturnType<typeof compileFixture>>;
let bufferedBodyBytes: (server: Server) => number;
const servers: Server[] = [];

beforeAll(async () => {
  compiled = await compileFixture("blog");
  ({ bufferedBodyBytes } = (await import(pathToFileURL(path.join(compiled.dir, "runtime/http.gen.js")).href)) as {
    bufferedBodyBytes: typeof bufferedBodyBytes;
  });
}, START_TIMEOUT);
afterAll(async () => {
  await Promise.all(servers.map(stop));
  await compiled?.dispose();
});

/** Starts the blog server with these limits (the rest default) on 127.0.0.1; its port. */
async function start(
  limits: { requestTimeout?: number; headersTimeout?: number; maxBufferedBytes?: number; maxConnections?: number } = {},
): Promise<{ server: Server; port: number }> {
  const server = compiled.api.createServer({
    handlers: compiled.api.createMemoryHandlers(),
    verifyToken: () => undefined,
    issueToken: () => ({ access_token: "t", token_type: "bearer" }),
    connectionsCheckingInterval: 50,
    ...limits,
  });
  servers.push(server);
  return { server, port: await listen(server) };
}

/** One client connection: what it received, and whether its bytes were all written or it closed. */
type Client = { socket: Socket; received: () => string; closed: Promise<void> };

/** Opens a connection and writes `head` and `body` at once. */
async function client(port: number, head: string, body: Buffer = Buffer.alloc(0)): Promise<Client> {
  const socket = connect(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  socket.on("error", () => undefined);
  const chunks: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.write(head, "latin1");
  socket.write(body);
  return { socket, received: () => Buffer.concat(chunks).toString("latin1"), closed };
}

/** A form POST to the token endpoint announcing `length` bytes. */
const tokenHead = (length: number) =>
  ["POST /token HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/x-www-form-urlencoded", `Content-Length: ${length}`, "", ""].join("\r\n");

/** The status, headers and JSON body of the first response in `text`. */
function response(text: string): { status: number; headers: Map<string, string>; body: unknown } {
  const end = text.indexOf("\r\n\r\n");
  const [statusLine = "", ...lines] = text.slice(0, end).split("\r\n");
  const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
  const body = text.slice(end + 4, end + 4 + Number(headers.get("content-length") ?? 0));
  return { status: Number(statusLine.split(" ")[1]), headers, body: body === "" ? undefined : JSON.parse(body) };
}

/** Waits until `done()` holds, or fails after `ms` (a guard against hangs, not a timed assertion). */
async function until(done: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A well-formed token request on a fresh connection: its parsed answer. */
async function tokenRequest(port: number): Promise<ReturnType<typeof response>> {
  const form = "grant_type=password&username=ann&password=pw";
  const reply = await client(port, tokenHead(form.length).replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"), Buffer.from(form));
  await reply.closed;
  return response(reply.received());
}

describe("request bodies share a budget of buffered bytes", () => {
  it(`${CLIENTS} clients each stalling after ${SENT} bytes: buffered bytes stay within the budget, the rest get 503, timeouts give the bytes back, the server answers`, async () => {
    // Why 12 s: every client must have connected and been refused or buffered before the first
    // times out (a loaded machine took more than 5 s to connect them all), or a refusal reads as
    // a time-out.
    const { server, port } = await start({ headersTimeout: 1_000, requestTimeout: 12_000 });
    const rssBefore = process.memoryUsage().rss;
    let peakBuffered = 0;
    let peakRss = rssBefore;
    const sampler = setInterval(() => {
      peakBuffered = Math.max(peakBuffered, bufferedBodyBytes(server));
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 5);
    try {
      // One buffer for every client: the test's own memory must not mask the server's.
      const body = Buffer.alloc(SENT, 0x61);
      const clients: Client[] = [];
      for (let batch = 0; batch < CLIENTS; batch += 100) {
        clients.push(...(await Promise.all(Array.from({ length: Math.min(100, CLIENTS - batch) }, () => client(port, tokenHead(BODY_LIMIT), body)))));
      }
      // Settled: every connection still open has its whole body buffered by the server (so each
      // refused one, which holds nothing, has been closed).
      const open = () => clients.filter((c) => !c.socket.destroyed);
      await until(
        () => bufferedBodyBytes(server) === open().length * SENT,
        20_000,
        `${bufferedBodyBytes(server)} bytes buffered for ${open().length} open connections`,
      );

      const stalled = open();
      const refused = clients.filter((c) => c.socket.destroyed);
      expect(refused.length).toBeGreaterThan(0);
      expect(stalled.length).toBeGreaterThan(0);
      expect(stalled.length * SENT).toBeLessThanOrEqual(BUDGET);
      for (const refusal of refused) {
        const answer = response(refusal.received());
        expect(answer.status, refusal.received()).toBe(503);
        expect(answer.headers.get("retry-after")).toBe("1");
        expect(answer.headers.get("connection")).toBe("close");
        expect(answer.headers.get("content-type")).toBe("application/json");
        expect(answer.body).toEqual({ error: "Service unavailable", detail: { body: expect.any(String) } });
      }
      expect(peakBuffered).toBeLessThanOrEqual(BUDGET);
      // Generous: the budget and room for the sockets and the test's own work; without a budget it passes 400 MiB.
      expect(peakRss - rssBefore).toBeLessThan(BUDGET + 96 * MiB);

      // A request without a body is answered meanwhile.
      const index = await client(port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
      await index.closed;
      expect(response(index.received()).status).toBe(200);

      // The stalled requests time out (408, closed) and give their bytes back; a token request then succeeds.
      await Promise.race([
        Promise.all(stalled.map((c) => c.closed)),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("stalled clients were not timed out")), 30_000)),
      ]);
      for (const timedOut of stalled) expect(response(timedOut.received()).status).toBe(408);
      // The client sees the close before the server has seen the client's side close.
      await until(() => bufferedBodyBytes(server) === 0, 5_000, `${bufferedBodyBytes(server)} bytes still held after the timeouts`);
      const token = await tokenRequest(port);
      expect(token.status).toBe(200);
      expect(token.body).toMatchObject({ access_token: "t" });
      expect(bufferedBodyBytes(server)).toBe(0);
    } finally {
      clearInterval(sampler);
    }
  }, 90_000);

  it("a request gives its bytes back when its client goes away, when it is refused 413, and when it is served", async () => {
    const { server, port } = await start({ maxBufferedBytes: 4 * MiB });
    const gone = await Promise.all(Array.from({ length: 3 }, () => client(port, tokenHead(BODY_LIMIT), Buffer.alloc(MiB / 2, 0x61))));
    await until(() => bufferedBodyBytes(server) === 3 * (MiB / 2), 5_000, "three half bodies buffered");
    for (const c of gone) c.socket.destroy();
    await until(() => bufferedBodyBytes(server) === 0, 5_000, "bytes given back after the clients went away");

    const chunked = await client(
      port,
      "POST /token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n",
    );
    const chunk = Buffer.alloc(256 * 1024, 0x61);
    for (let i = 0; i < 5 && !chunked.socket.destroyed; i++)
      chunked.socket.write(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]));
    await chunked.closed;
    expect(response(chunked.received()).status).toBe(413);
    expect(bufferedBodyBytes(server)).toBe(0);

    expect((await tokenRequest(port)).status).toBe(200);
    expect(bufferedBodyBytes(server)).toBe(0);
  });

  it("a body that does not fit the budget: 503 with Retry-After and the connection closed; a smaller one passes", async () => {
    const { server, port } = await start({ maxBufferedBytes: 64 * 1024 });
    const big = await client(port, tokenHead(200 * 1024), Buffer.alloc(200 * 1024, 0x61));
    await big.closed;
    const answer = response(big.received());
    expect(answer.status).toBe(503);
    expect(answer.headers.get("retry-after")).toBe("1");
    expect(bufferedBodyBytes(server)).toBe(0);
    expect((await tokenRequest(port)).status).toBe(200);
  });
});

describe("maxConnections", () => {
  it("past the limit a new connection is closed unanswered; once one closes, requests are answered again", async () => {
    const { server, port } = await start({ maxConnections: 3 });
    const held = await Promise.all(Array.from({ length: 3 }, () => client(port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")));
    await until(() => (server as Server & { _connections: number })._connections === 3, 5_000, "three connections held");
    const extra = await client(port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    await extra.closed;
    expect(extra.received()).toBe("");
    held[0]!.socket.destroy();
    await held[0]!.closed;
    await until(() => (server as Server & { _connections: number })._connections === 2, 5_000, "one connection released");
    const after = await client(port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    await after.closed;
    expect(response(after.received()).status).toBe(200);
    for (const c of held) c.socket.destroy();
  });
});

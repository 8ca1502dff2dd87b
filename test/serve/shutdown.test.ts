// Graceful shutdown of `codegen serve` as a real process (http-behaviour "Running in production"):
// SIGTERM with writes in flight answers every one of them (their bodies still arriving when the
// signal comes), `/readyz` then says 503, and the process exits 0. Also `/healthz` and `/readyz`.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltCli, type CliProcess, buildCli, startCli, waitForOutput } from "../support/cli-process.js";
import { ROOT } from "../support/fixtures.js";
import { open, statusOf } from "../support/raw-connection.js";

let cli: BuiltCli;
const started: CliProcess[] = [];
const tmps: string[] = [];

beforeAll(async () => {
  cli = await buildCli();
}, 120_000);

afterAll(() => {
  for (const process of started) process.child.kill("SIGKILL");
  for (const tmp of tmps) rmSync(tmp, { recursive: true, force: true });
  cli?.dispose();
});

async function serveBlog(): Promise<{ server: CliProcess; url: string }> {
  const tmp = mkdtempSync(path.join(tmpdir(), "codegen-shutdown-test-"));
  tmps.push(tmp);
  const declaration = path.join(ROOT, "fixtures/valid/blog/declaration.yaml");
  const server = startCli(cli, ["serve", declaration, "--port", "0", "--user", "ann:secret:articles:write"], ROOT, { TMPDIR: tmp });
  started.push(server);
  const [, url] = await waitForOutput(server, /on (http:\/\/127\.0\.0\.1:\d+\S*) \(Ctrl-C/, 30_000);
  return { server, url: url! };
}

describe("codegen serve: health and graceful shutdown", () => {
  it("answers /healthz and /readyz 200, and on SIGTERM answers every write in flight, then exits 0", async () => {
    const { server, url } = await serveBlog();
    const base = new URL(url);
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    const token = (await (
      await fetch(`${url}/_codegen/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=password&username=ann&password=secret&scope=articles:write",
      })
    ).json()) as { access_token: string };
    // 20 writes whose bodies are half sent when SIGTERM comes.
    const body = JSON.stringify({ title: "Shutdown", body: "in flight" });
    const half = Math.floor(body.length / 2);
    const writes = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const connection = await open(base);
        connection.socket.write(
          `POST ${base.pathname.replace(/\/$/, "")}/articles HTTP/1.1\r\nHost: ${base.host}\r\nAuthorization: Bearer ${token.access_token}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, half)}`,
        );
        return connection;
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    server.child.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const { socket } of writes) socket.write(body.slice(half));
    const answers = await Promise.all(writes.map((w) => w.answer));
    // Each in-flight write was answered (not reset), and told to close its connection.
    const statuses = answers.map(statusOf);
    expect(statuses, answers[0]).toEqual(Array.from({ length: 20 }, () => 201));
    for (const answer of answers) expect(answer.toLowerCase()).toContain("connection: close");
    expect(await server.exited).toBe(0);
  }, 60_000);
});

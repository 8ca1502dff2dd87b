// `codegen serve` as a real process: a request that fails half-way (the client goes away mid-body)
// on serve's own `/_codegen/token` or on the API's token endpoint must not end the process, and
// SIGTERM, SIGINT or an uncaught error ends it with its temporary folder removed.

import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pathToFileURL } from "node:url";
import { type BuiltCli, type CliProcess, buildCli, startCli, startNode, waitForOutput } from "../support/cli-process.js";
import { ROOT } from "../support/fixtures.js";

let cli: BuiltCli;
const started: CliProcess[] = [];

beforeAll(async () => {
  cli = await buildCli();
}, 60_000);

afterAll(() => {
  for (const process of started) process.child.kill("SIGKILL");
  cli?.dispose();
});

/** Starts `codegen serve` on the blog fixture on a free port, its temporary folders under a fresh TMPDIR. */
async function serveBlog(extra: readonly string[] = []): Promise<{ server: CliProcess; url: string; tmp: string }> {
  return serveFixture("blog", ["--user", "ann:secret:articles:write", ...extra]);
}

/** Starts `codegen serve` on a fixture's declaration on a free port; `url` is the base URL it prints. */
async function serveFixture(name: string, extra: readonly string[]): Promise<{ server: CliProcess; url: string; tmp: string }> {
  const tmp = mkdtempSync(path.join(tmpdir(), "codegen-serve-test-"));
  const declaration = path.join(ROOT, `fixtures/valid/${name}/declaration.yaml`);
  const server = startCli(cli, ["serve", declaration, "--port", "0", ...extra], ROOT, { TMPDIR: tmp });
  started.push(server);
  const [, url] = await waitForOutput(server, /on (http:\/\/127\.0\.0\.1:\d+\S*) \(Ctrl-C/, 30_000);
  return { server, url: url!, tmp };
}

/** Sends a request head announcing 100 bytes of form, then 9 of them, then closes the connection. */
async function abortMidBody(url: string, target: string): Promise<void> {
  const socket = connect(Number(new URL(url).port), "127.0.0.1");
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  socket.on("error", () => undefined);
  const head = [`POST ${target} HTTP/1.1`, "Host: 127.0.0.1", "Content-Type: application/x-www-form-urlencoded", "Content-Length: 100", "", ""].join("\r\n");
  await new Promise<void>((resolve) => socket.write(head + "username=", () => resolve()));
  // Why: the server must have read the partial body before the close, or no read is under way.
  await new Promise((resolve) => setTimeout(resolve, 100));
  socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 200));
}

/** A token for ann from `target`: the parsed token response. */
async function token(url: string, target: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url + target, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: "grant_type=password&username=ann&password=secret&scope=articles:write",
    signal: AbortSignal.timeout(5_000),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The entries left in a folder. */
const leftIn = (folder: string) => readdirSync(folder);

describe("codegen serve, a real process", () => {
  it("survives clients that go away mid-body on /_codegen/token and on /token, answers afterwards, and SIGTERM removes its temporary folder", async () => {
    const { server, url, tmp } = await serveBlog();
    try {
      expect(leftIn(tmp)).toHaveLength(1);
      for (const target of ["/_codegen/token", "/token", "/_codegen/token"]) await abortMidBody(url, target);
      // Each request whose client went away is logged once, as aborted (the server's onResponse).
      await waitForOutput(server, /^POST \/_codegen\/token 499 \d+ ms \(aborted\)\n(.*\n)*POST \/token 499 \d+ ms \(aborted\)\n/m, 5_000);
      for (const target of ["/_codegen/token", "/token"]) {
        const issued = await token(url, target);
        expect(issued.status, JSON.stringify(issued.body)).toBe(200);
        expect(issued.body.expires_in).toBe(3600);
      }
      const created = await fetch(`${url}/articles`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${String((await token(url, "/_codegen/token")).body.access_token)}` },
        body: JSON.stringify({ title: "still here" }),
      });
      expect(created.status).toBe(201);
      // The caller is in the line: the server's onResponse is told whom the token check accepted.
      await waitForOutput(server, /^POST \/articles 201 \d+ ms ann$/m, 5_000);
      expect(server.output().match(/^POST \/_codegen\/token 499 /gm)).toHaveLength(2);
      expect(server.child.exitCode, server.output()).toBeNull();
      server.child.kill("SIGTERM");
      expect(await server.exited, server.output()).toBe(0);
      expect(server.output()).not.toMatch(/Unhandled|Error/);
      expect(leftIn(tmp)).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 60_000);

  it("SIGINT ends it with its temporary folder removed; --token-lifetime sets expires_in", async () => {
    const { server, url, tmp } = await serveBlog(["--token-lifetime", "120"]);
    try {
      expect((await token(url, "/_codegen/token")).body.expires_in).toBe(120);
      server.child.kill("SIGINT");
      expect(await server.exited, server.output()).toBe(0);
      expect(leftIn(tmp)).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 60_000);

  it("an uncaught error ends the process with its temporary folder removed", async () => {
    const tmp = mkdtempSync(path.join(tmpdir(), "codegen-serve-test-"));
    const module = (file: string) => JSON.stringify(pathToFileURL(path.join(cli.dist, file)).href);
    const script = `
      import { readFileSync } from "node:fs";
      import { nodeHost } from ${module("host.js")};
      import { generateFiles } from ${module("pipeline.js")};
      import { serveFiles } from ${module("serve/serve.js")};
      const file = "fixtures/valid/blog/declaration.yaml";
      const result = await generateFiles(nodeHost(), file, readFileSync(file, "utf8"), { outDir: ".", format: false });
      await serveFiles(result.value, { port: 0, host: "127.0.0.1", users: [] });
      setTimeout(() => { throw new Error("an uncaught error"); }, 10);
    `;
    const child = startNode(["--input-type=module", "-e", script], ROOT, { TMPDIR: tmp });
    started.push(child);
    try {
      expect(await child.exited, child.output()).toBe(1);
      expect(child.output()).toContain("an uncaught error");
      expect(leftIn(tmp)).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 60_000);

  it("--watch: a valid edit is served on the same port, an invalid one prints its diagnostics and the last good server answers; each request is logged", async () => {
    const tmp = mkdtempSync(path.join(tmpdir(), "codegen-serve-test-"));
    const api = path.join(tmp, "api.yaml");
    copyFileSync(path.join(ROOT, "fixtures/valid/blog/declaration.yaml"), api);
    const server = startCli(cli, ["serve", "api.yaml", "--port", "0", "--watch", "--user", "ann:secret:articles:write"], tmp, { TMPDIR: tmp });
    started.push(server);
    try {
      const [, url] = await waitForOutput(server, /on (http:\/\/127\.0\.0\.1:\d+) /, 30_000);
      await waitForOutput(server, /watching api\.yaml/, 10_000);
      const bearer = `Bearer ${String((await token(url!, "/_codegen/token")).body.access_token)}`;
      const post = () =>
        fetch(`${url}/articles`, { method: "POST", headers: { "Content-Type": "application/json", Authorization: bearer }, body: '{"title": "t"}' });
      expect((await post()).status).toBe(201);
      await waitForOutput(server, /^POST \/articles 201 \d+ ms ann$/m, 5_000);
      expect((await fetch(`${url}/notes`)).status).toBe(404);

      writeFileSync(api, readFileSync(api, "utf8") + "\n  notes:\n    fields:\n      text: string\n    access: { read: public, write: [articles:write] }\n");
      await waitForOutput(server, /api\.yaml changed: regenerating\n(.*\n)*restarted on http:\/\/127\.0\.0\.1:\d+ in \d+ ms/, 30_000);
      expect((await fetch(`${url}/notes`)).status).toBe(200);
      // The issuer outlives a restart: the token from before still works.
      expect((await post()).status).toBe(201);

      writeFileSync(api, readFileSync(api, "utf8") + "  broken: [\n");
      await waitForOutput(server, /api\.yaml:\d+:\d+: error: .*\n(.*\n)*api\.yaml: not served \(\d+ ms\); the last good server still answers/, 30_000);
      expect((await fetch(`${url}/notes`)).status).toBe(200);
      await waitForOutput(server, /^GET \/notes 200 \d+ ms$/m, 5_000);
      expect(server.child.exitCode, server.output()).toBeNull();
      server.child.kill("SIGINT");
      expect(await server.exited, server.output()).toBe(0);
      expect(leftIn(tmp).filter((entry) => entry.startsWith("codegen-serve-"))).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 90_000);

  it("--quiet logs no request", async () => {
    const { server, url, tmp } = await serveBlog(["--quiet"]);
    try {
      expect((await fetch(`${url}/articles`)).status).toBe(200);
      server.child.kill("SIGTERM");
      expect(await server.exited).toBe(0);
      expect(server.output()).not.toMatch(/GET \/articles/);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 60_000);

  it("--cors: a preflight from an allowed origin is answered, CORS headers on its requests, none for another origin", async () => {
    const { server, url, tmp } = await serveBlog(["--cors", "https://app.example.org", "--cors", "http://localhost:5173"]);
    try {
      const preflight = await fetch(`${url}/articles`, {
        method: "OPTIONS",
        headers: { Origin: "http://localhost:5173", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization" },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
      expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
      const allowed = await fetch(`${url}/articles`, { headers: { Origin: "https://app.example.org" } });
      expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example.org");
      const other = await fetch(`${url}/articles`, { headers: { Origin: "https://evil.example" } });
      expect([...other.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([]);
      await waitForOutput(server, /^OPTIONS \/articles 204 \d+ ms$/m, 5_000);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 60_000);

  it("--cors '*' lets any origin in; an origin with a path is wrong usage (exit 2) naming the origin meant", async () => {
    const { server, url, tmp } = await serveBlog(["--cors", "*"]);
    try {
      const reply = await fetch(`${url}/articles`, { headers: { Origin: "https://anywhere.example" } });
      expect(reply.headers.get("access-control-allow-origin")).toBe("https://anywhere.example");
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
      rmSync(tmp, { recursive: true, force: true });
    }
    for (const [value, meant] of [
      ["http://localhost:5173/", "; did you mean http://localhost:5173?"],
      ["localhost:5173", ""],
    ] as const) {
      const wrong = startCli(cli, ["serve", path.join(ROOT, "fixtures/valid/blog/declaration.yaml"), "--port", "0", "--cors", value], ROOT);
      started.push(wrong);
      expect(await wrong.exited, wrong.output()).toBe(2);
      expect(wrong.output()).toBe(`codegen: error: --cors ${value} must be an origin as browsers send it (scheme://host[:port], no path) or *${meant}\n`);
    }
  }, 60_000);

  it("a --host that does not resolve is exit 1 with one line naming it, no stack trace, and no temporary folder left", async () => {
    const tmp = mkdtempSync(path.join(tmpdir(), "codegen-serve-test-"));
    try {
      const wrong = startCli(cli, ["serve", path.join(ROOT, "fixtures/valid/blog/declaration.yaml"), "--port", "0", "--host", "999.1.1.1"], ROOT, {
        TMPDIR: tmp,
      });
      started.push(wrong);
      expect(await wrong.exited, wrong.output()).toBe(1);
      expect(wrong.output()).toMatch(
        /^codegen: error: cannot listen on 999\.1\.1\.1:0 \((ENOTFOUND|EAI_AGAIN|EAI_FAIL)\); choose another with --port or --host\n$/,
      );
      expect(leftIn(tmp)).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 60_000);

  it("serves under the base path of the first server URL: prints the base URL, its token endpoint and log lines carry it", async () => {
    const { server, url, tmp } = await serveFixture("lending", ["--user", "ann:secret:library:read,library:write"]);
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const origin = new URL(url).origin;
      expect((await fetch(`${origin}/_codegen/token`, { method: "POST" })).status).toBe(404);
      const issued = await token(url, "/_codegen/token");
      expect(issued.status, JSON.stringify(issued.body)).toBe(400);
      expect(issued.body.error).toBe("invalid_scope");
      const response = await fetch(`${url}/_codegen/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: "grant_type=password&username=ann&password=secret&scope=library:read",
      });
      const body = (await response.json()) as { access_token: string };
      expect(response.status).toBe(200);
      const members = await fetch(`${url}/members`, { headers: { Authorization: `Bearer ${body.access_token}` } });
      expect(members.status).toBe(200);
      const index = (await (await fetch(`${url}/`)).json()) as { links: { rel: string; href: string }[] };
      expect(index.links.find((link) => link.rel === "books")?.href).toBe("/v1/books");
      await waitForOutput(server, /^GET \/v1\/members 200 \d+ ms ann$/m, 5_000);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 60_000);
});

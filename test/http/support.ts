// Helpers of the HTTP suite: requests to a generated server on 127.0.0.1 (fetch, or raw bytes
// over node:net when fetch cannot express them), tokens from its issuer, and the checks every
// answer must pass (http-behaviour "Errors": a JSON body with `Content-Type: application/json`).

import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { expect } from "vitest";
import { parse } from "yaml";
import { nodeHost } from "../../src/host.js";
import type { GeneratedFile } from "../../src/emit/render.js";
import { type GenerateOptions, type Outcome, generateFiles } from "../../src/pipeline.js";
import { compileToJavaScript } from "../../src/serve/compile.js";
import type { RunningServer, ServeOptions, ServeUser } from "../../src/serve/serve.js";
import { exchange } from "../runtime/wire.js";
import type { Exchange } from "../runtime/wire.js";
import { ROOT } from "../support/fixtures.js";
import { generateFixture, serveWithTestStore } from "../support/generated.js";

/** Time a server may take to generate, compile and start (beforeAll). */
export const START_TIMEOUT = 60_000;

/** Time one request may take before the test fails (every request is bounded). */
const REQUEST_TIMEOUT = 2_000;

/** Start a server on a free port of 127.0.0.1; its base URL (`http://127.0.0.1:PORT`). */
export async function listenLocal(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Stop a server started by listenLocal, its idle keep-alive connections too. */
export async function closeLocal(server: Server | undefined): Promise<void> {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
}

/** A JSON object as read from a response. */
export type Json = { [key: string]: unknown };

/** What came back: status, headers, raw text and the parsed JSON body (undefined when empty). */
export type Reply = { status: number; headers: Headers; text: string; body: unknown };

/** Options of one request made with fetch. */
export type CallOptions = {
  /** Request headers; `json` sets `Content-Type: application/json` unless given here. */
  headers?: Record<string, string>;
  /** A JSON body. */
  json?: unknown;
  /** A raw body: text (sent as UTF-8) or bytes. */
  body?: string | Uint8Array;
  /** A bearer token: sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** The media type an error answer carries: a document's own (`application/problem+json`); default application/json. */
  errorType?: string;
};

/**
 * Sends one request with fetch and checks what every answer must be: a non-empty body is JSON
 * with `Content-Type: application/json`, and only 204 comes without a body.
 */
export async function call(base: string, method: string, target: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers["Authorization"] = `Bearer ${options.token}`;
  if (options.json !== undefined) headers["Content-Type"] = "application/json";
  Object.assign(headers, options.headers ?? {});
  const body = options.json !== undefined ? JSON.stringify(options.json) : options.body;
  const response = await fetch(base + target, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT),
  });
  const text = await response.text();
  const reply: Reply = { status: response.status, headers: response.headers, text, body: text === "" ? undefined : (JSON.parse(text) as unknown) };
  expectWellFormed(reply.status, reply.headers.get("content-type"), text, reply.status >= 400 ? options.errorType : undefined);
  return reply;
}

/** A body is JSON with `Content-Type: application/json` (or the document's error type); only 204 and 304 have none. */
function expectWellFormed(status: number, contentType: string | null | undefined, text: string, type = "application/json"): void {
  if (status === 204 || status === 304) {
    expect(text, `${status} carries no body`).toBe("");
    return;
  }
  expect(text, `a ${status} answer carries a body`).not.toBe("");
  expect(contentType, `the ${status} answer is JSON`).toBe(type);
}

/** The body of a reply as an object (fails when it is not one). */
export function obj(reply: Reply | RawReply): Json {
  const body = reply.body;
  expect(typeof body === "object" && body !== null && !Array.isArray(body), `an object body: ${reply.text}`).toBe(true);
  return body as Json;
}

/** The body of a reply as an array of objects (fails when it is not one). */
export function list(reply: Reply): Json[] {
  expect(Array.isArray(reply.body), `an array body: ${reply.text}`).toBe(true);
  return reply.body as Json[];
}

/**
 * An error answer: this status, a body `{error: string, detail: {...}}`, and, when `fields` is
 * given, `detail` naming exactly those fields.
 */
export function expectError(reply: Reply | RawReply, status: number, fields?: readonly string[]): Json {
  expect(reply.status, reply.text).toBe(status);
  const body = obj(reply);
  expect(typeof body.error, reply.text).toBe("string");
  expect(typeof body.detail === "object" && body.detail !== null && !Array.isArray(body.detail), reply.text).toBe(true);
  const detail = body.detail as Json;
  for (const message of Object.values(detail)) expect(typeof message).toBe("string");
  if (fields !== undefined) expect(Object.keys(detail).sort(), reply.text).toEqual([...fields].sort());
  return detail;
}

/** A guard's refusal: status, challenge (undefined: none) and `{detail: <detail>}`. */
export function expectAuthError(reply: Reply | RawReply, status: 401 | 403, challenge: string | undefined, detail?: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers.get("www-authenticate") ?? undefined).toBe(challenge);
  const body = obj(reply);
  expect(Object.keys(body)).toEqual(["detail"]);
  expect(typeof body.detail).toBe("string");
  if (detail !== undefined) expect(body.detail).toBe(detail);
}

/** What came back on a raw connection: the first response (its body parsed), and what followed it. */
export type RawReply = Omit<Exchange, "body"> & { text: string; body: unknown; rest: string };

/**
 * Sends `lines` (the request head, CRLF-joined, `Host` and, unless `keepAlive`, `Connection:
 * close` added) and `body` on a new connection, exactly as given, then `parts` (`gapMs` apart),
 * and reads the first response until the server closes the connection or `waitMs` pass.
 */
export async function raw(
  base: string,
  lines: readonly string[],
  body = "",
  options: { waitMs?: number; gapMs?: number; parts?: readonly string[]; keepAlive?: boolean } = {},
): Promise<RawReply> {
  const [requestLine = "", ...headerLines] = lines;
  const connection = options.keepAlive ? [] : ["Connection: close"];
  const head = [requestLine, "Host: 127.0.0.1", ...headerLines, ...connection, "", ""].join("\r\n");
  const request = options.parts ? [head + body, ...options.parts] : head + body;
  const reply = await exchange(portOf(base), request, { waitMs: options.waitMs ?? 1_500, gapMs: options.gapMs ?? 0 });
  const bytes = Buffer.from(reply.body, "latin1");
  const length = Number(reply.headers.get("content-length") ?? bytes.length);
  const text = bytes.subarray(0, length).toString("utf8");
  expectWellFormed(reply.status, reply.headers.get("content-type"), text);
  return { ...reply, text, body: text === "" ? undefined : (JSON.parse(text) as unknown), rest: bytes.subarray(length).toString("latin1") };
}

/** The port of a server's base URL. */
export function portOf(base: string): number {
  return Number(new URL(base).port);
}

/** Form-encodes fields in order (repeats allowed: give pairs). */
export function form(fields: readonly (readonly [string, string])[]): string {
  return new URLSearchParams(fields.map(([k, v]): [string, string] => [k, v])).toString();
}

/** Posts a form to a token endpoint. */
export function postForm(base: string, target: string, body: string, headers: Record<string, string> = {}): Promise<Reply> {
  return call(base, "POST", target, { body, headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers } });
}

/**
 * A token with exactly `scopes`, from the server's token endpoint `target` (the strict form
 * sends `grant_type=password`, which the permissive one accepts too).
 */
export async function issueToken(base: string, user: ServeUser, scopes: readonly string[], target = "/_codegen/token"): Promise<string> {
  const reply = await postForm(
    base,
    target,
    form([
      ["grant_type", "password"],
      ["username", user.name],
      ["password", user.password],
      ["scope", scopes.join(" ")],
    ]),
  );
  expect(reply.status, reply.text).toBe(200);
  const token = obj(reply).access_token;
  expect(typeof token).toBe("string");
  return token as string;
}

/**
 * Generates from input text (a declaration or an OpenAPI document, as YAML), written to
 * `api.yaml` in a temporary folder first (an OpenAPI document is bundled from its file).
 */
export async function generateText(yaml: string, options: Pick<GenerateOptions, "migration"> = {}): Promise<Outcome<GeneratedFile[]>> {
  const dir = await mkdtemp(path.join(tmpdir(), "codegen-input-"));
  try {
    await writeFile(path.join(dir, "api.yaml"), yaml);
    return await generateFiles({ ...nodeHost(), cwd: dir }, "api.yaml", yaml, { outDir: "generated", ...options });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The files generated from input text; its diagnostics thrown. */
async function generatedFiles(yaml: string): Promise<GeneratedFile[]> {
  // With its first migration (`codegen migrate new`), so the PostgreSQL store's migrate() makes its tables.
  const result = await generateText(yaml, { migration: { name: "initial" } });
  if (!result.value) throw new Error(result.diagnostics.map((d) => d.message).join("\n"));
  return result.value;
}

/**
 * Starts, as `codegen serve` does, a server generated from a declaration or an OpenAPI document
 * given as YAML text (for guards no fixture has).
 */
export async function startDeclaredServer(yaml: string, users: readonly ServeUser[], extra: Partial<ServeOptions> = {}): Promise<RunningServer> {
  return serveWithTestStore(await generatedFiles(yaml), users, extra);
}

/** A fixture's expected OpenAPI document, parsed. */
export function fixtureDocument(name: string): Json {
  return parse(readFileSync(path.join(ROOT, "fixtures/valid", name, "expected/openapi.yaml"), "utf8")) as Json;
}

/** A handler as the compiled code calls it: one input object, any result. */
export type HandlerFunction = (input: Json) => unknown;

/** What the compiled generated code exports (index.gen.ts), as far as these tests use it. */
export type CompiledApi = {
  createServer(options: {
    handlers: { [resource: string]: { [operation: string]: HandlerFunction } };
    verifyToken: (token: string, scopes: Json, guard: Json) => unknown;
    issueToken?: (request: Json) => unknown;
    securityHooks?: { [scheme: string]: (input: { value: string | undefined; scopes: Json }) => unknown };
    onError?: (error: unknown) => void;
    bodyLimit?: number;
    headersTimeout?: number;
    requestTimeout?: number;
    connectionsCheckingInterval?: number;
    maxBufferedBytes?: number;
    maxConnections?: number;
    basePath?: string;
    cursorKey?: string | Uint8Array;
    requireIfMatch?: boolean;
  }): Server;
  createMemoryHandlers(): { [resource: string]: { [operation: string]: HandlerFunction } };
};

/** A generated API compiled to JavaScript in the temporary folder `dir`, and its removal. */
type Compiled = { api: CompiledApi; dir: string; dispose(): Promise<void> };

/**
 * Generates a fixture, compiles it to JavaScript in a temporary folder (as `codegen serve`
 * does) and imports it, so a test can start it with handlers and hooks of its own.
 */
export async function compileFixture(name: string): Promise<Compiled> {
  return compileFiles(await generateFixture(name));
}

/** As compileFixture, for a declaration or an OpenAPI document given as YAML text. */
export async function compileText(yaml: string): Promise<Compiled> {
  return compileFiles(await generatedFiles(yaml));
}

async function compileFiles(files: readonly GeneratedFile[]): Promise<Compiled> {
  const dir = await mkdtemp(path.join(tmpdir(), "codegen-http-"));
  for (const file of await compileToJavaScript(files)) {
    const target = path.join(dir, file.path);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, file.contents);
  }
  const api = (await import(pathToFileURL(path.join(dir, "index.gen.js")).href)) as CompiledApi;
  return { api, dir, dispose: () => rm(dir, { recursive: true, force: true }) };
}

import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { rmSync } from "node:fs";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { OpenAPIV3_1 } from "openapi-types";
import type { Principal, SecurityHookInput } from "#runtime/guards.gen.js";
import type { ResponseEvent } from "#runtime/host.gen.js";
import type { TokenRequest } from "#runtime/token-form.gen.js";
import { buildApiModel } from "../compile/api/build.js";
import { type Database, evolveSchema } from "../postgres/database.js";
import { tablesOf } from "../compile/tables.js";
import type { GeneratedFile } from "../emit/render.js";
import { compileToJavaScript } from "./compile.js";
import { type ExampleAnswer, exampleAnswers } from "./examples.js";

/** A user of the built-in token issuer: `--user NAME:PASSWORD[:SCOPE,...]`. */
export interface ServeUser {
  readonly name: string;
  readonly password: string;
  readonly scopes: readonly string[];
}

/** Parse `NAME:PASSWORD[:SCOPE,...]`: name and password hold no `:`; scope names may (cli.md). */
export function parseUser(text: string): ServeUser | undefined {
  const first = text.indexOf(":");
  if (first <= 0) return undefined;
  const second = text.indexOf(":", first + 1);
  const name = text.slice(0, first);
  const password = second === -1 ? text.slice(first + 1) : text.slice(first + 1, second);
  if (password === "") return undefined;
  const scopes =
    second === -1
      ? []
      : text
          .slice(second + 1)
          .split(",")
          .filter((s) => s !== "");
  return { name, password, scopes };
}

/**
 * The generated server's `cors` option from `--cors` values (cli.md): `*` among them allows any
 * origin; every other must be an origin exactly as a browser sends it in `Origin`. Undefined for
 * none; for one that is no such origin, a usage message (with the origin meant, when there is one).
 */
export function parseCors(values: readonly string[]): { cors: "*" | readonly string[] | undefined } | { usage: string } {
  if (values.length === 0) return { cors: undefined };
  for (const value of values) {
    if (value === "*") continue;
    const origin = originOf(value);
    if (origin === value) continue;
    // Why: a browser sends `http://localhost:3000`, never `http://localhost:3000/`; an origin that
    // can never match is a mistake to name now rather than a preflight that fails in the browser.
    const meant = origin === undefined ? "" : `; did you mean ${origin}?`;
    return { usage: `--cors ${value} must be an origin as browsers send it (scheme://host[:port], no path) or *${meant}` };
  }
  return { cors: values.includes("*") ? "*" : [...new Set(values)] };
}

/** The origin (scheme, host and port as a browser serialises them) of an http(s) URL; undefined for anything else. */
function originOf(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Options of a served API. */
export interface ServeOptions {
  readonly port: number;
  readonly host: string;
  readonly users: readonly ServeUser[];
  /** How long a token of the built-in issuer is valid, in seconds (`expires_in`); default 3600. */
  readonly tokenLifetime?: number;
  /** Told of errors of the server itself (not of one request), such as failing to accept a connection. */
  readonly onError?: (error: Error) => void;
  /**
   * Keep the resources in this PostgreSQL database (`--db`) instead of in memory: its tables are
   * brought to the document's first (destructive changes withheld, see `warnings`).
   */
  readonly database?: Database;
  /**
   * Told of every request once it is answered, or its client has gone (cli.md: one log line per
   * request): the generated server's own `onResponse`.
   */
  readonly onResponse?: (entry: ResponseEvent) => void;
  /** The origins whose browsers may call the API (`--cors`), or `*` for any: the generated server's `cors` option. */
  readonly cors?: "*" | readonly string[];
}

/** The log line of a request: `GET /articles/1 200 3 ms ann`; characters outside printable ASCII are shown as `\u{...}`. */
export function requestLogLine(entry: ResponseEvent): string {
  const principal = entry.principal ? ` ${printable(entry.principal.subject)}` : "";
  const end = entry.aborted ? " (aborted)" : "";
  return `${printable(entry.method)} ${printable(entry.path)} ${entry.status} ${Math.round(entry.duration)} ms${principal}${end}`;
}

/** Text with spaces, control and non-ASCII characters escaped. */
function printable(text: string): string {
  // Why: the path and the method are the client's; escaped, a hostile one cannot write terminal
  // control sequences or a second log line, and a space cannot shift the line's fields.
  return text.replace(/[^\x21-\x7e]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

/** The default lifetime of a token of the built-in issuer: one hour, in seconds. */
export const DEFAULT_TOKEN_LIFETIME = 3600;

/** A running server: its address, its token URLs and a way to stop it. */
export interface RunningServer {
  /** The address it listens on, `http://127.0.0.1:8080`. */
  readonly url: string;
  /**
   * The path every route is served under: the path of the document's first server URL (`/v1`),
   * `""` for none; after `replace`, the new document's. `url + basePath` is the API's base URL.
   */
  readonly basePath: string;
  /** The paths of serve's own token endpoint on this address: `/_codegen/token` under the base path. */
  readonly tokenPaths: readonly string[];
  /** Destructive changes of the database's tables that were not applied (`--db`). */
  readonly warnings: readonly string[];
  /** Operations of a document written by others whose example does not fit its schema, and what serve answers instead. */
  readonly notes: readonly string[];
  /**
   * Serve other generated files on the same address (`serve --watch`): they are compiled and
   * loaded first; only then does the new server take the port over, and the old one finishes the
   * requests it has. Rejects, with the old server still answering, when they cannot be loaded.
   * Tokens of the built-in issuer stay valid; the in-memory data starts afresh.
   */
  replace(files: readonly GeneratedFile[]): Promise<void>;
  close(): Promise<void>;
}

/** What the compiled generated code exports (index.gen.ts), as far as serve uses it. */
interface GeneratedModule {
  /** `shutdown`: the graceful stop of the runtime's host (host.gen.ts shutdownServer). */
  createServer(options: object): Server & { shutdown(options: { timeoutMs: number }): Promise<void> };
  createMemoryHandlers(): object;
  /** Absent for APIs without resources. */
  createPostgresStore?(options: { query: Database["query"] }): object;
}
/** What the compiled api.gen.ts exports, as far as serve uses it: the route table the dispatcher reads. */
interface GeneratedApi {
  routes: object[];
}
/** What the compiled document.gen.ts exports: the document the server answers, as JSON text, and its base path. */
interface GeneratedDocument {
  document: { basePath: string; json: string };
}

/**
 * `POST /_codegen/token` as a route of the generated dispatcher (runtime/dispatch.gen.ts
 * `RouteSpec`): a public password token endpoint of the permissive form.
 */
const CODEGEN_TOKEN_ROUTE = {
  segments: ["_codegen", "token"],
  methods: {
    POST: {
      operationId: "codegenIssueToken",
      kind: "token",
      security: [],
      parameters: [],
      body: { required: true, json: [], raw: ["application/x-www-form-urlencoded"] },
      responses: { "200": ["application/json"], "400": ["application/json"] },
      jsonOnly: true,
      form: "permissive",
    },
  },
};

/**
 * Run generated server code: compile it to JavaScript in a temporary folder, start it with the
 * in-memory store and a built-in token issuer for `users`, and listen (cli.md, `serve`).
 */
export async function serveFiles(files: readonly GeneratedFile[], options: ServeOptions): Promise<RunningServer> {
  const tokens = new TokenStore(options.tokenLifetime ?? DEFAULT_TOKEN_LIFETIME);
  let current = await loadServer(files, options, tokens);
  let port = options.port;
  try {
    await listen(current.server, port, options.host, options.onError);
  } catch (error) {
    await current.dispose();
    throw error;
  }
  const address = current.server.address();
  // Why: a restart listens where the first server got its port, also when it was asked for port 0.
  if (typeof address === "object" && address) port = address.port;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    // Why getters: a replaced server's document may have another base path.
    get basePath() {
      return current.basePath;
    },
    get tokenPaths() {
      // Why: the generated server serves every route under the base path, serve's own route too.
      return [`${current.basePath}/_codegen/token`];
    },
    warnings: current.warnings,
    notes: current.notes,
    replace: async (next) => {
      const fresh = await loadServer(next, options, tokens);
      const old = current;
      // Why: the port is let go only once the new server is ready, so the gap in which a client
      // finds nothing listening is the time of one listen call, not of a compilation.
      old.server.close();
      old.server.closeIdleConnections();
      try {
        await listen(fresh.server, port, options.host, options.onError);
      } catch (error) {
        await fresh.dispose();
        // The old server takes its port back, so a failed restart leaves it answering.
        await listen(old.server, port, options.host, options.onError);
        throw error;
      }
      current = fresh;
      void old.dispose(DRAIN_MS);
    },
    // Why a grace: SIGTERM and Ctrl-C stop serve through here; requests in flight are answered first.
    close: () => current.dispose(DRAIN_MS),
  };
}

/** How long a replaced server may take to finish the requests it has before its connections are cut. */
const DRAIN_MS = 5_000;

/** A generated server loaded and created, not yet listening, with the temporary folder of its compiled code. */
interface LoadedServer extends Pick<RunningServer, "basePath" | "warnings" | "notes"> {
  readonly server: Server;
  /** Stops it listening, ends its connections (at once, or once idle within `graceMs`) and removes its folder. */
  dispose(graceMs?: number): Promise<void>;
}

/** Compile `files` into a temporary folder, load them and create their server with serve's handlers, issuer, CORS and request log. */
async function loadServer(files: readonly GeneratedFile[], options: ServeOptions, tokens: TokenStore): Promise<LoadedServer> {
  const dir = await mkdtemp(path.join(tmpdir(), "codegen-serve-"));
  removeOnExit(dir);
  const remove = async () => {
    temporaryFolders.delete(dir);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const file of await compileToJavaScript(files)) {
      const target = path.join(dir, file.path);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, file.contents);
    }
    const generated = (await import(pathToFileURL(path.join(dir, "index.gen.js")).href)) as GeneratedModule;
    const api = (await import(pathToFileURL(path.join(dir, "api.gen.js")).href)) as GeneratedApi;
    // Why: `/_codegen/token` is one more route of the generated server (this copy of its route
    // table is serve's own), so it is answered by the very code of the API's token endpoint: the
    // same checks in the same order, the same body reading and budget, the same error answers.
    api.routes.push(CODEGEN_TOKEN_ROUTE);
    // Why document.gen.ts's: the OpenAPI 3.1 document the files were generated from (serve asks for
    // no other version; openapi.yaml reads back as the same data) with the base path the generated
    // server serves under, and its JSON reads faster than openapi.yaml's YAML.
    const served = ((await import(pathToFileURL(path.join(dir, "document.gen.js")).href)) as GeneratedDocument).document;
    const document = JSON.parse(served.json) as OpenAPIV3_1.Document;
    // Why `fromOthers`: the files were generated, so the document had nothing refused; what
    // was rendered otherwise must read the same here (a declaration's document has none of it).
    const view = buildApiModel(document, { inputPath: "", fromOthers: true });
    const examples = exampleAnswers(document, view.mockAnswers);
    let store = generated.createMemoryHandlers();
    let warnings: readonly string[] = [];
    if (options.database !== undefined && generated.createPostgresStore !== undefined) {
      warnings = (await evolveSchema(options.database, (last) => tablesOf(document, { snapshot: last }))).warnings;
      store = generated.createPostgresStore({ query: options.database.query });
    }
    // Why: the log line is the generated server's own `onResponse`, which is told the principal
    // that serve's token check or hook answered, so serve needs no wrapper of its own.
    const server = generated.createServer({
      handlers: withExampleHandlers(store, examples.answers),
      verifyToken: (token: string, _scopes: unknown, guard: { kind: string }) => tokens.verify(guard.kind === "oauth2" ? withoutBearer(token) : token),
      issueToken: (request: TokenRequest) => issue(options.users, tokens, request),
      securityHooks: Object.fromEntries(view.securityHooks.map((hook) => [hook.name, (input: SecurityHookInput) => checkHook(input, options.users, tokens)])),
      ...(options.onResponse === undefined ? {} : { onResponse: options.onResponse }),
      ...(options.cors === undefined ? {} : { cors: options.cors }),
      // `/readyz` asks the database (one cheap query) when serve keeps the data there.
      ...(options.database === undefined ? {} : { ready: () => options.database!.query("SELECT 1") }),
    });
    return {
      server,
      basePath: served.basePath,
      warnings,
      notes: examples.notes,
      dispose: async (graceMs = 0) => {
        await server.shutdown({ timeoutMs: graceMs });
        await remove();
      },
    };
  } catch (error) {
    await remove();
    throw error;
  }
}

/** Listen on `port` and `host`; rejects with the listen error (EADDRINUSE and the like). */
async function listen(server: Server, port: number, host: string, onError: ((error: Error) => void) | undefined): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => reject(error);
    server.once("error", failed);
    server.listen(port, host, () => {
      server.off("error", failed);
      resolve();
    });
  });
  // Why: once listening, an error of the server (a connection it fails to accept: EMFILE) is
  // told, never thrown: without a listener it would end the process and every request with it.
  if (server.listenerCount("error") === 0) server.on("error", (error) => onError?.(error));
}

/** The temporary folders of servers still running in this process. */
const temporaryFolders = new Set<string>();

/**
 * Removes `dir` when the process exits while its server still runs: on an uncaught error or a
 * `process.exit` (Ctrl-C and SIGTERM stop the server first, through `close`).
 */
function removeOnExit(dir: string): void {
  // Why: one listener for every server of the process, so starting many adds no listeners; an
  // 'exit' listener runs synchronously, hence rmSync.
  if (!process.listeners("exit").includes(removeAllOnExit)) process.on("exit", removeAllOnExit);
  temporaryFolders.add(dir);
}

function removeAllOnExit(): void {
  for (const dir of temporaryFolders) rmSync(dir, { recursive: true, force: true });
}

/**
 * serve's check for API keys and other schemes: a token of its issuer works as an API key; HTTP
 * Basic credentials are checked against the --user list (with every scope the user holds).
 */
function checkHook(input: SecurityHookInput, users: readonly ServeUser[], tokens: TokenStore): Principal | undefined {
  if (input.value === undefined) return undefined;
  const token = tokens.verify(input.value);
  if (token) return token;
  const decoded = Buffer.from(input.value, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0) return undefined;
  const user = findUser(users, decoded.slice(0, colon), decoded.slice(colon + 1));
  return user && { subject: user.name, scopes: [...user.scopes] };
}

/**
 * The in-memory store's handlers, and for operations of documents written by others (which no
 * store can implement) handlers that give the answers of src/serve/examples.ts; an operation
 * without one has no handler (docs/openapi.md, "codegen serve with such a document").
 */
function withExampleHandlers(memory: object, answers: Readonly<Record<string, ExampleAnswer>>): object {
  const example = (answer: ExampleAnswer) => () => structuredClone(answer);
  const group = new Proxy(
    {},
    { get: (_target, operationId) => (typeof operationId === "string" && Object.hasOwn(answers, operationId) ? example(answers[operationId]!) : undefined) },
  );
  return new Proxy(memory, { get: (target, name) => (Object.hasOwn(target, name) ? (target as Record<PropertyKey, unknown>)[name] : group) });
}

/** The generic guard's credential is the whole header: a bare token, or one after `Bearer ` (any case, one space). */
function withoutBearer(credential: string): string {
  return /^bearer /i.test(credential) ? credential.slice("bearer ".length) : credential;
}

/** The built-in issuer: random opaque tokens carrying exactly the requested scopes the user holds, valid for the store's lifetime. */
function issue(users: readonly ServeUser[], tokens: TokenStore, request: TokenRequest): object {
  const user = findUser(users, request.username, request.password);
  if (!user) return { error: "invalid_grant", message: "the user name or password is not valid" };
  const missing = request.scopes.filter((scope) => !user.scopes.includes(scope));
  if (missing.length > 0) return { error: "invalid_scope", message: `${user.name} does not hold ${missing.join(", ")}` };
  const token = tokens.issue({ subject: user.name, scopes: [...request.scopes] });
  return { access_token: token, token_type: "bearer", expires_in: tokens.lifetime, scope: request.scopes.join(" ") };
}

/**
 * The user with this name and password, compared in constant time: every user is compared, and
 * each comparison takes as long whatever the strings, so timing tells nothing of a password.
 */
function findUser(users: readonly ServeUser[], name: string, password: string): ServeUser | undefined {
  let found: ServeUser | undefined;
  for (const user of users) {
    // Why: both are compared before either is looked at, so a wrong name costs the password comparison all the same.
    const sameName = sameSecret(user.name, name);
    const samePassword = sameSecret(user.password, password);
    if (sameName && samePassword) found ??= user;
  }
  return found;
}

/** Whether two strings are equal, in time independent of where they differ and of their lengths. */
function sameSecret(a: string, b: string): boolean {
  // Why: timingSafeEqual needs equal lengths and would leak them (or throw); SHA-256 digests are
  // always 32 bytes, and equal digests mean equal strings.
  return timingSafeEqual(sha256(a), sha256(b));
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/** At most this many tokens are valid at once; issuing one more forgets the oldest. */
const MAX_LIVE_TOKENS = 100_000;

/**
 * The tokens the built-in issuer gave and that have not expired. Tokens are kept by their SHA-256
 * digest, so a lookup compares digests, never the secret itself, and nothing stored is a token.
 */
export class TokenStore {
  /** Digest of the token -> its principal and when it expires (ms on the monotonic clock), oldest first. */
  private readonly live = new Map<string, { principal: Principal; expires: number }>();

  /**
   * @param lifetime how long a token is valid, in seconds
   * @param capacity how many tokens may be valid at once; one more forgets the oldest
   */
  constructor(
    readonly lifetime: number,
    private readonly capacity = MAX_LIVE_TOKENS,
  ) {}

  /** How many tokens are remembered (expired ones are forgotten when the next is issued, or when presented). */
  get size(): number {
    return this.live.size;
  }

  /** A new random token for `principal`, valid for `lifetime` seconds from now. */
  issue(principal: Principal): string {
    this.sweep();
    if (this.live.size >= this.capacity) this.live.delete(this.live.keys().next().value!);
    const token = randomBytes(24).toString("base64url");
    this.live.set(digest(token), { principal, expires: performance.now() + this.lifetime * 1000 });
    return token;
  }

  /** The principal of a token that is valid now; undefined for an unknown or expired one (forgotten then). */
  verify(token: string): Principal | undefined {
    const key = digest(token);
    const entry = this.live.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires > performance.now()) return entry.principal;
    this.live.delete(key);
    return undefined;
  }

  /** Forgets the expired tokens. */
  private sweep(): void {
    // Why: every token lives as long, so the map's insertion order is expiry order: the expired
    // ones are at its front, and the sweep stops at the first that is still valid.
    const now = performance.now();
    for (const [key, entry] of this.live) {
      if (entry.expires > now) break;
      this.live.delete(key);
    }
  }
}

/** A token as the store keeps it: its SHA-256 digest, in base64. */
const digest = (token: string): string => sha256(token).toString("base64");

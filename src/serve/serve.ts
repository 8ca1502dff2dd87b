import { randomBytes } from "node:crypto";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parse } from "yaml";
import { buildApiView } from "../model/build.js";
import type { ApiView } from "../model/view.js";
import type { GeneratedFile } from "../render/render.js";
import { compileToJavaScript } from "./compile.js";

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
  const scopes = second === -1 ? [] : text.slice(second + 1).split(",").filter((s) => s !== "");
  return { name, password, scopes };
}

/** Options of a served API. */
export interface ServeOptions {
  readonly port: number;
  readonly host: string;
  readonly users: readonly ServeUser[];
}

/** A running server: its address, its token URLs and a way to stop it. */
export interface RunningServer {
  readonly url: string;
  /** The token endpoints that answer here: the API's own, and `/_codegen/token`. */
  readonly tokenPaths: readonly string[];
  close(): Promise<void>;
}

/** What the compiled generated code exports (index.gen.ts), as far as serve uses it. */
interface GeneratedModule {
  createServer(options: object): Server;
  createMemoryHandlers(): object;
}
type Principal = { subject: string; scopes: readonly string[] };
type TokenRequest = { username: string; password: string; scopes: string[] };

/**
 * Run generated server code: compile it to JavaScript in a temporary folder, start it with the
 * in-memory store and a built-in token issuer for `users`, and listen (cli.md, `serve`).
 */
export async function serveFiles(files: readonly GeneratedFile[], options: ServeOptions): Promise<RunningServer> {
  const dir = await mkdtemp(path.join(tmpdir(), "codegen-serve-"));
  try {
    for (const file of await compileToJavaScript(files)) {
      const target = path.join(dir, file.path);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, file.contents);
    }
    const generated = (await import(pathToFileURL(path.join(dir, "index.gen.js")).href)) as GeneratedModule;
    const runtime = {
      ...(await import(pathToFileURL(path.join(dir, "runtime/http.gen.js")).href)),
      ...(await import(pathToFileURL(path.join(dir, "runtime/token-form.gen.js")).href)),
    } as TokenRuntime;
    const tokens = new Map<string, Principal>();
    const issueToken = (request: TokenRequest) => issue(options.users, tokens, request);
    const view = viewOf(files);
    const server = generated.createServer({
      handlers: withExampleHandlers(generated.createMemoryHandlers(), view.mockAnswers),
      verifyToken: (token: string, _scopes: unknown, guard: { kind: string }) => tokens.get(guard.kind === "oauth2" ? withoutBearer(token) : token),
      issueToken,
      securityHooks: Object.fromEntries(view.securityHooks.map((hook) => [hook.name, (input: HookInput) => checkHook(input, options.users, tokens)])),
    });

    // `/_codegen/token` answers for every guard, so guards whose token URL is elsewhere can be tried locally.
    const listeners = server.listeners("request") as RequestListener[];
    server.removeAllListeners("request");
    server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      if (req.method === "POST" && req.url?.split("?")[0] === "/_codegen/token") {
        void answerToken(req, res, runtime, issueToken);
        return;
      }
      for (const listener of listeners) listener(req, res);
    });

    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port, options.host, () => resolve());
    });
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : options.port;
    const host = options.host.includes(":") ? `[${options.host}]` : options.host;
    return {
      url: `http://${host}:${port}`,
      tokenPaths: ["/_codegen/token"],
      close: async () => {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The view of the served document (openapi.yaml among the files), for what serve answers itself. */
function viewOf(files: readonly GeneratedFile[]): ApiView {
  const document = files.find((f) => f.path === "openapi.yaml");
  if (!document) throw new Error("the generated files lack openapi.yaml");
  return buildApiView(parse(document.contents) as Parameters<typeof buildApiView>[0], { inputPath: "" });
}

type HookInput = { value: string | undefined; request: IncomingMessage };

/**
 * serve's check for API keys and other schemes: a token of its issuer works as an API key; HTTP
 * Basic credentials are checked against the --user list (with every scope the user holds).
 */
function checkHook(input: HookInput, users: readonly ServeUser[], tokens: ReadonlyMap<string, Principal>): Principal | undefined {
  if (input.value === undefined) return undefined;
  const token = tokens.get(input.value);
  if (token) return token;
  const decoded = Buffer.from(input.value, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const user = users.find((u) => u.name === decoded.slice(0, colon) && u.password === decoded.slice(colon + 1));
  return user && colon > 0 ? { subject: user.name, scopes: [...user.scopes] } : undefined;
}

/**
 * The in-memory store's handlers, and for operations of documents written by others (which no
 * store can implement) handlers that answer each operation's first declared success with the
 * document's example, if it gives one (README "codegen serve").
 */
function withExampleHandlers(memory: object, answers: ApiView["mockAnswers"]): object {
  const example = (operationId: string) => () => {
    const answer = Object.hasOwn(answers, operationId) ? answers[operationId] : undefined;
    if (!answer) throw new Error(`serve has no answer for ${operationId}`);
    return structuredClone(answer);
  };
  const group = new Proxy({}, { get: (_target, operationId) => (typeof operationId === "string" ? example(operationId) : undefined) });
  return new Proxy(memory, { get: (target, name) => (Object.hasOwn(target, name) ? (target as Record<PropertyKey, unknown>)[name] : group) });
}

/** The generic guard's credential is the whole header: a bare token, or one after `Bearer ` (any case, one space). */
function withoutBearer(credential: string): string {
  return /^bearer /i.test(credential) ? credential.slice("bearer ".length) : credential;
}

/** The built-in issuer: random opaque tokens carrying exactly the requested scopes the user holds. */
function issue(users: readonly ServeUser[], tokens: Map<string, Principal>, request: TokenRequest): object {
  const user = users.find((u) => u.name === request.username && u.password === request.password);
  if (!user) return { error: "invalid_grant", message: "the user name or password is not valid" };
  const missing = request.scopes.filter((scope) => !user.scopes.includes(scope));
  if (missing.length > 0) return { error: "invalid_scope", message: `${user.name} does not hold ${missing.join(", ")}` };
  const token = randomBytes(24).toString("base64url");
  tokens.set(token, { subject: user.name, scopes: [...request.scopes] });
  return { access_token: token, token_type: "bearer", scope: request.scopes.join(" ") };
}

/** The parts of the generated runtime that `/_codegen/token` uses. */
interface TokenRuntime {
  readBody(req: IncomingMessage, limit?: number): Promise<{ ok: true; body: Buffer } | Refusal>;
  sendJson(res: ServerResponse, status: number, body: object, headers?: object): void;
  acceptsJson(accept: string | undefined): boolean;
  isFormContentType(contentType: string | undefined): boolean;
  isTokenFormContentType(contentType: string | undefined, bodyLength: number): boolean;
  parseTokenForm(body: string, form: "permissive", authorization?: string): { ok: true; value: TokenRequest } | Refusal;
}
type Refusal = { ok: false; status: number; headers: object; body: object };

/**
 * `POST /_codegen/token`, answered with the checks of the API's own token endpoint, in its order
 * (http-behaviour "Errors"): Accept (406), Content-Type before a byte is read (415), size (413).
 */
async function answerToken(req: IncomingMessage, res: ServerResponse, runtime: TokenRuntime, issueToken: (request: TokenRequest) => object): Promise<void> {
  const refuse = (status: number, error: string, detail: Record<string, string>, close = false) => {
    if (close) res.setHeader("Connection", "close");
    runtime.sendJson(res, status, { error, detail });
    if (close) res.once("finish", () => req.socket.destroy());
  };
  if (!runtime.acceptsJson(req.headers.accept)) return refuse(406, "Not acceptable", { accept: "must admit application/json" });
  const contentType = req.headers["content-type"];
  const unsupported = { "content-type": "must be application/x-www-form-urlencoded" };
  if (contentType !== undefined && !runtime.isFormContentType(contentType)) return refuse(415, "Unsupported media type", unsupported, true);
  const read = await runtime.readBody(req);
  if (!read.ok) {
    if (contentType === undefined) return refuse(415, "Unsupported media type", unsupported, true);
    res.setHeader("Connection", "close");
    return runtime.sendJson(res, read.status, read.body, read.headers);
  }
  if (!runtime.isTokenFormContentType(contentType, read.body.length)) return refuse(415, "Unsupported media type", unsupported);
  const form = runtime.parseTokenForm(read.body.toString("utf8"), "permissive", req.headers.authorization);
  if (!form.ok) return runtime.sendJson(res, form.status, form.body, form.headers);
  const result = issueToken(form.value) as { error?: string; message?: string };
  const noStore = { "Cache-Control": "no-store", Pragma: "no-cache" };
  if (result.error !== undefined) {
    const field = result.error === "invalid_scope" ? "scope" : "password";
    return runtime.sendJson(res, 400, { error: result.error, detail: { [field]: result.message ?? result.error } }, noStore);
  }
  runtime.sendJson(res, 200, result, noStore);
}

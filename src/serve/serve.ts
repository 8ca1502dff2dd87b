import { randomBytes } from "node:crypto";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
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
    const tokenForm = (await import(pathToFileURL(path.join(dir, "runtime/token-form.gen.js")).href)) as {
      parseTokenForm(body: string, form: "permissive" | "strict", authorization?: string): { ok: true; value: TokenRequest } | { ok: false; status: number; headers: object; body: object };
    };
    const http = (await import(pathToFileURL(path.join(dir, "runtime/http.gen.js")).href)) as {
      readBody(req: IncomingMessage, limit?: number): Promise<{ ok: true; body: Buffer } | { ok: false; status: number; headers: object; body: object }>;
      sendJson(res: ServerResponse, status: number, body: object, headers?: object): void;
    };
    const tokens = new Map<string, Principal>();
    const issueToken = (request: TokenRequest) => issue(options.users, tokens, request);
    const server = generated.createServer({
      handlers: generated.createMemoryHandlers(),
      verifyToken: (token: string, _scopes: unknown, guard: { kind: string }) => tokens.get(guard.kind === "oauth2" ? withoutBearer(token) : token),
      issueToken,
    });

    // `/_codegen/token` answers for every guard, so guards whose token URL is elsewhere can be tried locally.
    const listeners = server.listeners("request") as RequestListener[];
    server.removeAllListeners("request");
    server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      if (req.method === "POST" && req.url?.split("?")[0] === "/_codegen/token") {
        void answerToken(req, res, http, tokenForm, issueToken);
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

async function answerToken(
  req: IncomingMessage,
  res: ServerResponse,
  http: { readBody(req: IncomingMessage): Promise<{ ok: true; body: Buffer } | { ok: false; status: number; headers: object; body: object }>; sendJson(res: ServerResponse, status: number, body: object, headers?: object): void },
  tokenForm: { parseTokenForm(body: string, form: "permissive", authorization?: string): { ok: true; value: TokenRequest } | { ok: false; status: number; headers: object; body: object } },
  issueToken: (request: TokenRequest) => object,
): Promise<void> {
  const read = await http.readBody(req);
  if (!read.ok) return http.sendJson(res, read.status, read.body, read.headers);
  const contentType = req.headers["content-type"];
  if (contentType !== undefined && !/^application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType)) {
    return http.sendJson(res, 415, { error: "Unsupported media type", detail: { "content-type": "must be application/x-www-form-urlencoded" } });
  }
  const form = tokenForm.parseTokenForm(read.body.toString("utf8"), "permissive", req.headers.authorization);
  if (!form.ok) return http.sendJson(res, form.status, form.body, form.headers);
  const result = issueToken(form.value) as { error?: string; message?: string };
  if (result.error !== undefined) {
    const field = result.error === "invalid_scope" ? "scope" : "password";
    return http.sendJson(res, 400, { error: result.error, detail: { [field]: result.message ?? result.error } }, { "Cache-Control": "no-store" });
  }
  http.sendJson(res, 200, result, { "Cache-Control": "no-store", Pragma: "no-cache" });
}

import { ServerResponse } from "node:http";
import type { IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizationHeader, checkSecurity, readBearer, readOAuth2, securityScopes, splitAuthorization } from "../../runtime/guards.gen.js";
import type { Guard, Principal, SchemeSpec, SecurityHook, SecurityRequirement, SecurityScopes, VerifyToken } from "../../runtime/guards.gen.js";
import { createHttpServer, parseUrl, sendJson, sendRefusal } from "../../runtime/http.gen.js";
import { exchange, getRequest, listen, stop } from "./wire.js";

const notAuthenticated401 = {
  ok: false,
  status: 401,
  headers: { "WWW-Authenticate": "Bearer" },
  body: { detail: "Not authenticated" },
};
const notAuthenticated403 = {
  ok: false,
  status: 403,
  headers: {},
  body: { detail: "Not authenticated" },
};

describe("splitAuthorization", () => {
  const rows: { given: string; want: { scheme: string; rest: string } }[] = [
    { given: "", want: { scheme: "", rest: "" } },
    { given: "Bearer", want: { scheme: "Bearer", rest: "" } },
    { given: "Bearer x", want: { scheme: "Bearer", rest: "x" } },
    { given: "Bearer  x y ", want: { scheme: "Bearer", rest: " x y " } },
    { given: "Bearer\tx", want: { scheme: "Bearer\tx", rest: "" } },
    { given: " Bearer x", want: { scheme: "", rest: "Bearer x" } },
  ];
  it.each(rows)("$given", ({ given, want }) => {
    expect(splitAuthorization(given)).toEqual(want);
  });
});

describe("readBearer", () => {
  const rows: { given: string | undefined; autoError: boolean; want: object }[] = [
    { given: undefined, autoError: true, want: notAuthenticated401 },
    { given: undefined, autoError: false, want: { ok: true, credential: undefined } },
    { given: "", autoError: true, want: notAuthenticated401 },
    { given: "", autoError: false, want: { ok: true, credential: undefined } },
    { given: "Bearer", autoError: true, want: { ok: true, credential: "" } },
    { given: "Bearer ", autoError: true, want: { ok: true, credential: "" } },
    { given: "Bearer x", autoError: true, want: { ok: true, credential: "x" } },
    { given: "bearer x", autoError: true, want: { ok: true, credential: "x" } },
    { given: "BEARER x", autoError: true, want: { ok: true, credential: "x" } },
    { given: "Bearer  x ", autoError: true, want: { ok: true, credential: "x" } },
    { given: "Bearer \tx\t", autoError: true, want: { ok: true, credential: "x" } },
    { given: "Bearer a b", autoError: true, want: { ok: true, credential: "a b" } },
    { given: "Bearer x\u00a0", autoError: true, want: { ok: true, credential: "x\u00a0" } },
    { given: "Basic x", autoError: true, want: notAuthenticated401 },
    { given: "Basic x", autoError: false, want: { ok: true, credential: undefined } },
    { given: "Bearer\tx", autoError: true, want: notAuthenticated401 },
    { given: "Bearerx", autoError: true, want: notAuthenticated401 },
    { given: "Bearerx", autoError: false, want: { ok: true, credential: undefined } },
    { given: " Bearer x", autoError: true, want: notAuthenticated401 },
  ];
  it.each(rows)("$given (autoError $autoError)", ({ given, autoError, want }) => {
    expect(readBearer(given, autoError)).toEqual(want);
  });
});

describe("readOAuth2", () => {
  const rows: { given: string | undefined; autoError: boolean; want: object }[] = [
    { given: undefined, autoError: true, want: notAuthenticated403 },
    { given: undefined, autoError: false, want: { ok: true, credential: undefined } },
    { given: "", autoError: true, want: notAuthenticated403 },
    { given: "", autoError: false, want: { ok: true, credential: undefined } },
    { given: "Bearer x", autoError: true, want: { ok: true, credential: "Bearer x" } },
    { given: "Basic  x ", autoError: true, want: { ok: true, credential: "Basic  x " } },
    { given: "whatever", autoError: false, want: { ok: true, credential: "whatever" } },
  ];
  it.each(rows)("$given (autoError $autoError)", ({ given, autoError, want }) => {
    expect(readOAuth2(given, autoError)).toEqual(want);
  });
});

describe("securityScopes", () => {
  const rows: { given: string[] | undefined; want: SecurityScopes }[] = [
    { given: undefined, want: { scopes: [], scopeStr: "" } },
    { given: [], want: { scopes: [], scopeStr: "" } },
    { given: ["read"], want: { scopes: ["read"], scopeStr: "read" } },
    { given: ["read", "write"], want: { scopes: ["read", "write"], scopeStr: "read write" } },
  ];
  it.each(rows)("$given", ({ given, want }) => {
    expect(securityScopes(given)).toEqual(want);
  });

  it("copies the list it is given", () => {
    const names = ["read"];
    const scopes = securityScopes(names);
    names.push("write");
    expect(scopes.scopes).toEqual(["read"]);
  });
});

const alice: Principal = { subject: "alice", scopes: ["read"] };
const admin: Principal = { subject: "admin", scopes: ["read", "write"] };
const bob: Principal = { subject: "bob", scopes: [] };

/** The application's token check of these tests; the generic guard sees the whole header. */
const verifyToken: VerifyToken = async (token) => {
  const known: Record<string, Principal> = {
    good: alice,
    root: admin,
    "a b": bob,
    "Bearer good": alice,
  };
  return Object.hasOwn(known, token) ? known[token] : undefined;
};

const password: Guard = { kind: "bearer", name: "password", autoError: true };
const lenient: Guard = { kind: "bearer", name: "lenient", autoError: false };
const generic: Guard = { kind: "oauth2", name: "generic", autoError: true };

const insufficient = (scope: string): object => ({
  ok: false,
  status: 403,
  headers: { "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${scope}"` },
  body: { detail: "Not enough permissions" },
});
const rejected = {
  ok: false,
  status: 401,
  headers: { "WWW-Authenticate": "Bearer" },
  body: { detail: "Could not validate credentials" },
};

/**
 * The requirements a declaration gives an operation (openapi.md, Operation security): one per
 * guard with the operation's scopes, and `{}` for optional access; and the schemes' table.
 */
function declared(guards: readonly Guard[], optional: boolean, scopes: readonly string[] = []) {
  const requirements: SecurityRequirement[] = guards.map((guard) => [{ scheme: guard.name, scopes }]);
  if (optional) requirements.push([]);
  const schemes: { [name: string]: SchemeSpec } = {};
  for (const guard of guards) schemes[guard.name] = guard.autoError ? { kind: guard.kind } : { kind: guard.kind, autoError: false };
  return { requirements, schemes };
}

/** A request as the security check reads it: its headers (the first of each counts). */
function request(headers: { [name: string]: string | undefined }): IncomingMessage {
  const distinct: { [name: string]: string[] } = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) distinct[name.toLowerCase()] = [value];
  return { headersDistinct: distinct, headers: Object.fromEntries(Object.entries(distinct).map(([k, v]) => [k, v[0]])) } as unknown as IncomingMessage;
}

/** The access decision as the tests compare it: a refusal whole, a grant by its principal. */
const decision = (access: Awaited<ReturnType<typeof checkSecurity>>): object => (access.ok ? { ok: true, principal: access.principal } : access);

// The rows of the access decision of codegen's own declarations (formerly `authorize`), answered
// exactly as before by the one evaluation of requirements.
describe("checkSecurity, on the requirements of declarations", () => {
  const rows: {
    name: string;
    given: { header: string | undefined; guards: Guard[]; optional?: boolean; scopes?: string[] };
    want: object;
  }[] = [
    { name: "no guard", given: { header: undefined, guards: [] }, want: { ok: true } },
    {
      name: "bearer, valid",
      given: { header: "Bearer good", guards: [password] },
      want: { ok: true, principal: alice },
    },
    {
      name: "bearer, absent",
      given: { header: undefined, guards: [password] },
      want: notAuthenticated401,
    },
    {
      name: "bearer, other scheme",
      given: { header: "Basic x", guards: [password] },
      want: notAuthenticated401,
    },
    {
      name: "bearer, rejected",
      given: { header: "Bearer bad", guards: [password] },
      want: rejected,
    },
    {
      name: "bearer, empty token",
      given: { header: "Bearer", guards: [password] },
      want: rejected,
    },
    {
      name: "optional, absent",
      given: { header: undefined, guards: [password], optional: true },
      want: { ok: true },
    },
    {
      name: "optional, other scheme",
      given: { header: "Basic x", guards: [password], optional: true },
      want: { ok: true },
    },
    {
      name: "optional, rejected",
      given: { header: "Bearer bad", guards: [password], optional: true },
      want: rejected,
    },
    {
      name: "optional, empty token",
      given: { header: "Bearer", guards: [password], optional: true },
      want: rejected,
    },
    {
      name: "optional, valid",
      given: { header: "Bearer good", guards: [password], optional: true },
      want: { ok: true, principal: alice },
    },
    {
      name: "autoError off, absent",
      given: { header: undefined, guards: [lenient] },
      want: { ok: true },
    },
    {
      name: "autoError off, rejected",
      given: { header: "Bearer bad", guards: [lenient] },
      want: rejected,
    },
    {
      name: "generic, absent",
      given: { header: undefined, guards: [generic] },
      want: notAuthenticated403,
    },
    { name: "generic, empty", given: { header: "", guards: [generic] }, want: notAuthenticated403 },
    {
      name: "generic, whole value",
      given: { header: "Bearer good", guards: [generic] },
      want: { ok: true, principal: alice },
    },
    { name: "generic, rejected", given: { header: "Basic x", guards: [generic] }, want: rejected },
    {
      name: "scope missing",
      given: { header: "Bearer good", guards: [password], scopes: ["write"] },
      want: insufficient("write"),
    },
    {
      name: "scopes named in order",
      given: { header: "Bearer a b", guards: [password], scopes: ["read", "write"] },
      want: insufficient("read write"),
    },
    {
      name: "scope held",
      given: { header: "Bearer root", guards: [password], scopes: ["write"] },
      want: { ok: true, principal: admin },
    },
    {
      name: "optional, scope missing",
      given: { header: "Bearer good", guards: [password], optional: true, scopes: ["write"] },
      want: insufficient("write"),
    },
    {
      name: "generic then bearer, absent: bearer's 401",
      given: { header: undefined, guards: [generic, password] },
      want: notAuthenticated401,
    },
    {
      name: "generic and bearer, other scheme rejected",
      given: { header: "Basic x", guards: [password, generic] },
      want: rejected,
    },
    {
      name: "generic and bearer, either accepts",
      given: { header: "Bearer good", guards: [generic, password] },
      want: { ok: true, principal: alice },
    },
    {
      name: "strict and lenient, absent",
      given: { header: undefined, guards: [password, lenient] },
      want: { ok: true },
    },
  ];
  it.each(rows)("$name", async ({ given, want }) => {
    const { requirements, schemes } = declared(given.guards, given.optional ?? false, given.scopes);
    const outcome = await checkSecurity(requirements, { schemes, hooks: {}, verifyToken }, request({ authorization: given.header }), new Map());
    expect(decision(outcome)).toEqual(want);
  });

  it("never hands the empty token to the token check, and passes the scopes and guard", async () => {
    const calls: [string, string, string][] = [];
    const { requirements, schemes } = declared([password, generic], false, ["read"]);
    const check: VerifyToken = (token, scopes, guard) => {
      calls.push([token, scopes.scopeStr, guard.name]);
      return undefined;
    };
    const outcome = await checkSecurity(requirements, { schemes, hooks: {}, verifyToken: check }, request({ authorization: "Bearer" }), new Map());
    expect(calls).toEqual([["Bearer", "read", "generic"]]);
    expect(outcome).toEqual(rejected);
  });

  it("escapes quotes in the scope challenge", async () => {
    const { requirements, schemes } = declared([password], false, ['a"b\\c']);
    const outcome = await checkSecurity(requirements, { schemes, hooks: {}, verifyToken }, request({ authorization: "Bearer good" }), new Map());
    expect(outcome).toMatchObject({
      headers: { "WWW-Authenticate": 'Bearer error="insufficient_scope", scope="a\\"b\\\\c"' },
    });
  });

  it("percent-encodes what no header can carry in the scope challenge", async () => {
    // Scopes of a document written by others: a line break, a tab, Cyrillic, an accent.
    const { requirements, schemes } = declared([password], false, ["x\ny", "tab\tz", "чтение", "é"]);
    const outcome = await checkSecurity(requirements, { schemes, hooks: {}, verifyToken }, request({ authorization: "Bearer good" }), new Map());
    const challenge = 'Bearer error="insufficient_scope", scope="x%0Ay tab%09z %D1%87%D1%82%D0%B5%D0%BD%D0%B8%D0%B5 %C3%A9"';
    expect(outcome).toMatchObject({ headers: { "WWW-Authenticate": challenge } });
    // As a header Node sends: it throws on a value it cannot send.
    const response = new ServerResponse({ method: "GET" } as IncomingMessage);
    expect(() => response.setHeader("WWW-Authenticate", challenge)).not.toThrow();
  });

  // A check written in JavaScript may answer a falsy value for a bad token, or a principal whose
  // scopes are not a list: none of them lets the request in.
  const odd: { name: string; answer: unknown; scopes: string[]; want: object }[] = [
    { name: "null", answer: null, scopes: [], want: rejected },
    { name: "false", answer: false, scopes: [], want: rejected },
    { name: "0", answer: 0, scopes: [], want: rejected },
    { name: "an empty string", answer: "", scopes: [], want: rejected },
    { name: "true", answer: true, scopes: [], want: rejected },
    { name: "null, scopes required", answer: null, scopes: ["read"], want: rejected },
    { name: "scopes as a string", answer: { subject: "s", scopes: "reader" }, scopes: ["read"], want: insufficient("read") },
    { name: "no scopes", answer: { subject: "s" }, scopes: ["read"], want: insufficient("read") },
  ];
  it.each(odd)("refuses a token check's answer of $name", async ({ answer, scopes, want }) => {
    const { requirements, schemes } = declared([password], false, scopes);
    const hook: SecurityHook = () => answer as Principal;
    for (const check of [() => answer as Principal, async () => answer as Principal]) {
      const outcome = await checkSecurity(requirements, { schemes, hooks: {}, verifyToken: check }, request({ authorization: "Bearer x" }), new Map());
      expect(outcome).toEqual(want);
    }
    const keyed = await checkSecurity(
      [[{ scheme: "key", scopes }]],
      { schemes: { key: { kind: "hook", in: "header", name: "x-key" } }, hooks: { key: hook }, verifyToken },
      request({ "x-key": "k" }),
      new Map(),
    );
    expect(keyed).toMatchObject({ ok: false, status: (want as { status: number }).status });
  });
});

// Several schemes per requirement and schemes other than OAuth2: a requirement is an
// AND of its schemes, each with its own scopes; the list is an OR; nothing else lets a request in.
describe("checkSecurity, AND inside a requirement, OR across them", () => {
  const app: Principal = { subject: "app", scopes: [] };
  const schemes: { [name: string]: SchemeSpec } = {
    P: { kind: "bearer" },
    K: { kind: "hook", in: "header", name: "X-API-Key" },
    B: { kind: "hook", in: "authorization", scheme: "basic" },
  };
  const keyHook: SecurityHook = ({ value }) => (value === "right" ? app : undefined);
  const hooks = { K: keyHook, B: () => undefined };
  const both: SecurityRequirement = [
    { scheme: "P", scopes: ["write"] },
    { scheme: "K", scopes: [] },
  ];
  const missingKey = { ok: false, status: 401, headers: {}, body: { detail: "Not authenticated" } };
  const wrongKey = { ok: false, status: 401, headers: {}, body: { detail: "Could not validate credentials" } };
  const rows: { name: string; security: SecurityRequirement[]; headers: { [name: string]: string }; want: object }[] = [
    { name: "both: a token lacking the scope and no key", security: [both], headers: { authorization: "Bearer good" }, want: insufficient("write") },
    { name: "both: a token with the scope and no key", security: [both], headers: { authorization: "Bearer root" }, want: missingKey },
    { name: "both: the key and no token", security: [both], headers: { "x-api-key": "right" }, want: notAuthenticated401 },
    {
      name: "both: the key and a token lacking the scope",
      security: [both],
      headers: { authorization: "Bearer good", "x-api-key": "right" },
      want: insufficient("write"),
    },
    { name: "both: a wrong key and a good token", security: [both], headers: { authorization: "Bearer root", "x-api-key": "wrong" }, want: wrongKey },
    {
      name: "both: the key and a token with the scope",
      security: [both],
      headers: { authorization: "Bearer root", "x-api-key": "right" },
      want: { ok: true, principal: admin },
    },
    {
      name: "both or Basic, nothing sent: every challenge",
      security: [both, [{ scheme: "B", scopes: [] }]],
      headers: {},
      want: { ...notAuthenticated401, headers: { "WWW-Authenticate": 'Bearer, Basic realm="api"' } },
    },
    { name: "both or anonymous, nothing sent", security: [both, []], headers: {}, want: { ok: true, principal: undefined } },
    {
      name: "both or anonymous, half of the first sent: anonymous",
      security: [both, []],
      headers: { authorization: "Bearer root" },
      want: { ok: true, principal: undefined },
    },
    {
      name: "both or anonymous, a wrong key: the token's challenge",
      security: [both, []],
      headers: { "x-api-key": "wrong" },
      want: { ...wrongKey, headers: { "WWW-Authenticate": "Bearer" } },
    },
    {
      name: "the key or Basic, a wrong key: Basic's challenge",
      security: [[{ scheme: "K", scopes: [] }], [{ scheme: "B", scopes: [] }]],
      headers: { "x-api-key": "wrong" },
      want: { ...wrongKey, headers: { "WWW-Authenticate": 'Basic realm="api"' } },
    },
    { name: "the key alone, a wrong key: no challenge to name", security: [[{ scheme: "K", scopes: [] }]], headers: { "x-api-key": "wrong" }, want: wrongKey },
    { name: "both or anonymous, a token lacking the scope", security: [both, []], headers: { authorization: "Bearer good" }, want: insufficient("write") },
    {
      name: "the key, or the token with write",
      security: [[{ scheme: "K", scopes: [] }], [{ scheme: "P", scopes: ["write"] }]],
      headers: { authorization: "Bearer root" },
      want: { ok: true, principal: admin },
    },
    {
      name: "roles of a hook scheme are the principal's scopes",
      security: [[{ scheme: "K", scopes: ["admin"] }]],
      headers: { "x-api-key": "right" },
      want: { ok: false, status: 403, headers: {}, body: { detail: "Not enough permissions" } },
    },
  ];
  it.each(rows)("$name", async ({ security, headers, want }) => {
    expect(decision(await checkSecurity(security, { schemes, hooks, verifyToken }, request(headers), new Map()))).toEqual(want);
  });

  it("the requirement met gives the principal of its first scheme and the union of its scopes", async () => {
    const access = await checkSecurity([both], { schemes, hooks, verifyToken }, request({ authorization: "Bearer root", "x-api-key": "right" }), new Map());
    expect(access).toEqual({ ok: true, principal: admin, scopes: securityScopes(["write"]) });
  });
});

describe("guards over HTTP", () => {
  const routes = new Map([
    ["bearer", declared([password], false)],
    ["optional", declared([password], true)],
    ["generic", declared([generic], false)],
    ["scoped", declared([password], false, ["write"])],
    ["echo", declared([], true)],
  ]);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = parseUrl(req.url ?? "/");
    const route = url.ok ? routes.get(url.value.segments[0] ?? "") : undefined;
    if (route === undefined) return sendJson(res, 404, { error: "Not found", detail: {} });
    const authorization = authorizationHeader(req);
    const access = await checkSecurity(route.requirements, { schemes: route.schemes, hooks: {}, verifyToken }, req, url.ok ? url.value.query : new Map());
    if (!access.ok) return sendRefusal(res, access);
    sendJson(res, 200, {
      subject: access.principal?.subject ?? null,
      authorization: authorization ?? null,
    });
  }

  const server = createHttpServer((req, res) => {
    handle(req, res).catch(() => sendJson(res, 500, { error: "Internal server error", detail: {} }));
  });
  let port = 0;
  beforeAll(async () => {
    port = await listen(server);
  });
  afterAll(() => stop(server));

  const ok = (subject: string | null): object => ({ status: 200, body: { subject } });
  const refused = (status: number, challenge: string | undefined, detail: string): object => ({
    status,
    challenge,
    body: { detail },
  });
  const rows: { path: string; given: string[]; want: object }[] = [
    { path: "/bearer", given: [], want: refused(401, "Bearer", "Not authenticated") },
    {
      path: "/bearer",
      given: ["Authorization:"],
      want: refused(401, "Bearer", "Not authenticated"),
    },
    {
      path: "/bearer",
      given: ["Authorization: Bearer"],
      want: refused(401, "Bearer", "Could not validate credentials"),
    },
    { path: "/bearer", given: ["Authorization: bearer good"], want: ok("alice") },
    { path: "/bearer", given: ["Authorization: BEARER good"], want: ok("alice") },
    { path: "/bearer", given: ["Authorization: Bearer  good "], want: ok("alice") },
    { path: "/bearer", given: ["Authorization: Bearer a b"], want: ok("bob") },
    {
      path: "/bearer",
      given: ["Authorization: Bearer bad"],
      want: refused(401, "Bearer", "Could not validate credentials"),
    },
    {
      path: "/bearer",
      given: ["Authorization: Basic x"],
      want: refused(401, "Bearer", "Not authenticated"),
    },
    {
      path: "/bearer",
      given: ["Authorization: Bearer\tgood"],
      want: refused(401, "Bearer", "Not authenticated"),
    },
    {
      path: "/bearer",
      given: ["Authorization: Bearergood"],
      want: refused(401, "Bearer", "Not authenticated"),
    },
    {
      path: "/bearer",
      given: ["Authorization: Bearer good", "Authorization: Bearer bad"],
      want: ok("alice"),
    },
    {
      path: "/bearer",
      given: ["Authorization: Bearer bad", "Authorization: Bearer good"],
      want: refused(401, "Bearer", "Could not validate credentials"),
    },
    { path: "/optional", given: [], want: ok(null) },
    { path: "/optional", given: ["Authorization:"], want: ok(null) },
    { path: "/optional", given: ["Authorization: Basic x"], want: ok(null) },
    { path: "/optional", given: ["Authorization: Bearer\tgood"], want: ok(null) },
    { path: "/optional", given: ["Authorization: Bearer good"], want: ok("alice") },
    {
      path: "/optional",
      given: ["Authorization: Bearer"],
      want: refused(401, "Bearer", "Could not validate credentials"),
    },
    {
      path: "/optional",
      given: ["Authorization: Bearer bad"],
      want: refused(401, "Bearer", "Could not validate credentials"),
    },
    { path: "/generic", given: [], want: refused(403, undefined, "Not authenticated") },
    {
      path: "/generic",
      given: ["Authorization:"],
      want: refused(403, undefined, "Not authenticated"),
    },
    { path: "/generic", given: ["Authorization: Bearer good"], want: ok("alice") },
    {
      path: "/generic",
      given: ["Authorization: Basic x"],
      want: refused(401, "Bearer", "Could not validate credentials"),
    },
    {
      path: "/scoped",
      given: ["Authorization: Bearer good"],
      want: refused(403, 'Bearer error="insufficient_scope", scope="write"', "Not enough permissions"),
    },
    { path: "/scoped", given: ["Authorization: Bearer root"], want: ok("admin") },
  ];
  it.each(rows)("$path with $given", async ({ path, given, want }) => {
    const reply = await exchange(port, getRequest(path, given));
    expect(reply.headers.get("content-type")).toBe("application/json");
    const body: unknown = JSON.parse(reply.body);
    expect({
      status: reply.status,
      challenge: reply.headers.get("www-authenticate"),
      body,
    }).toMatchObject(want);
  });

  it("hands the header to the guards as Node received it: outer white space gone, inner kept", async () => {
    const reply = await exchange(port, getRequest("/echo", ["Authorization:   Bearer  a\tb  "]));
    expect(JSON.parse(reply.body)).toEqual({ subject: null, authorization: "Bearer  a\tb" });
  });
});

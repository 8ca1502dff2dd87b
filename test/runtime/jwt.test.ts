// The runtime's JWT guards (runtime/jwt.gen.ts) against an independent implementation:
// tokens minted by `jose` must verify exactly when they should, every forgery and every broken
// token is refused (undefined, never a throw), JWKS keys rotate under a rate limit, and the
// tokens `issueJwt` signs verify under `jose`.

import { createHmac, createSecretKey, generateKeyPairSync } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { createServer } from "node:http";
import type { Server } from "node:http";
import { SignJWT, exportJWK, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { issueJwt, verifyJwt } from "../../runtime/jwt.gen.js";
import type { JwtAlgorithm, VerifyJwtOptions } from "../../runtime/jwt.gen.js";
import { listen, stop } from "./wire.js";

const ISSUER = "https://id.example.com/";
const AUDIENCE = "https://api.example.com";
const SECRET = "a shared secret of at least 32 bytes, for HS256 only";

type Pair = { publicKey: KeyObject; privateKey: KeyObject };
const rsa: Pair = generateKeyPairSync("rsa", { modulusLength: 2048 });
const otherRsa: Pair = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ec: Pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
const ed: Pair = generateKeyPairSync("ed25519");
const smallRsa: Pair = generateKeyPairSync("rsa", { modulusLength: 1024 });
const rsaPem = rsa.publicKey.export({ type: "spki", format: "pem" }) as string;

/** Each algorithm with the key jose signs with and the key source verifyJwt is given. */
const KEYS: { alg: JwtAlgorithm; signWith: KeyObject | Uint8Array; source: Overrides }[] = [
  { alg: "RS256", signWith: rsa.privateKey, source: { publicKey: rsaPem } },
  { alg: "PS256", signWith: rsa.privateKey, source: { publicKey: rsa.publicKey } },
  { alg: "ES256", signWith: ec.privateKey, source: { publicKey: ec.publicKey.export({ format: "jwk" }) } },
  { alg: "EdDSA", signWith: ed.privateKey, source: { publicKey: ed.publicKey.export({ type: "spki", format: "pem" }) as string } },
  { alg: "HS256", signWith: new TextEncoder().encode(SECRET), source: { secret: SECRET } },
];

const now = (): number => Math.floor(Date.now() / 1000);

/** A token minted by jose: `sub` ann, this issuer and audience, valid for an hour unless `claims` say otherwise. */
async function mint(alg: string, key: KeyObject | Uint8Array, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ sub: "ann", iss: ISSUER, aud: AUDIENCE, exp: now() + 3600, scope: "tasks:read", ...claims })
    .setProtectedHeader({ alg, ...header })
    .sign(key);
}

/** Options a test may set; the others are this issuer, audience, RS256 and the RSA public key (unless another key source is set). */
type Overrides = { [K in keyof VerifyJwtOptions]?: VerifyJwtOptions[K] | undefined };

function verifier(options: Overrides = {}): ReturnType<typeof verifyJwt> {
  const keyGiven = options.secret !== undefined || options.publicKey !== undefined || options.jwksUrl !== undefined;
  const defaults = { issuer: ISSUER, audience: AUDIENCE, algorithms: ["RS256"], ...(keyGiven ? {} : { publicKey: rsaPem }) };
  return verifyJwt({ ...defaults, ...options } as VerifyJwtOptions);
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A token signed by hand with HS256 over any header and payload (what jose would refuse to make). */
function handMade(header: unknown, payload: unknown, secret: string | Buffer = SECRET): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac("sha256", secret).update(input).digest("base64url")}`;
}

const claims = (extra: Record<string, unknown> = {}) => ({ sub: "ann", iss: ISSUER, aud: AUDIENCE, exp: now() + 3600, ...extra });

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** The same bytes spelled with stray low bits in the last character (43 characters hold 32 bytes and 2 spare bits). */
function nonCanonical(segment: string): string {
  const last = BASE64URL.indexOf(segment.at(-1)!);
  const spelled = `${segment.slice(0, -1)}${BASE64URL[last | 1]}`;
  expect(Buffer.from(spelled, "base64url")).toEqual(Buffer.from(segment, "base64url"));
  return spelled;
}

describe("verifyJwt: the five algorithms", () => {
  it.each(KEYS)("$alg: a token minted by jose is accepted, its sub and scopes are the principal", async ({ alg, signWith, source }) => {
    const verify = verifier({ algorithms: [alg], ...source });
    const principal = await verify(await mint(alg, signWith, { scope: "tasks:read tasks:write" }));
    expect(principal).toMatchObject({ subject: "ann", scopes: ["tasks:read", "tasks:write"] });
    expect(principal?.claims["iss"]).toBe(ISSUER);
  });

  it.each(KEYS)("$alg: a token signed by another key is refused", async ({ alg, source }) => {
    const other: Record<string, KeyObject | Uint8Array> = {
      RS256: otherRsa.privateKey,
      PS256: otherRsa.privateKey,
      ES256: generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey,
      EdDSA: generateKeyPairSync("ed25519").privateKey,
      HS256: new TextEncoder().encode(`${SECRET}, but another one`),
    };
    const verify = verifier({ algorithms: [alg], ...source });
    expect(await verify(await mint(alg, other[alg]!))).toBeUndefined();
  });
});

describe("verifyJwt: claims", () => {
  const verify = verifier();
  const sign = (extra: Record<string, unknown>) => mint("RS256", rsa.privateKey, extra);

  it("refuses an expired token, a token without exp, and one not yet valid", async () => {
    expect(await verify(await sign({ exp: now() - 1 }))).toBeUndefined();
    expect(await verify(await sign({ exp: undefined }))).toBeUndefined();
    expect(await verify(await sign({ exp: "9999999999" }))).toBeUndefined();
    expect(await verify(await sign({ nbf: now() + 120 }))).toBeUndefined();
    expect(await verify(await sign({ nbf: now() - 1 }))).toBeDefined();
  });

  it("allows clockToleranceSeconds of skew on exp and nbf, and no more", async () => {
    const lenient = verifier({ clockToleranceSeconds: 60 });
    const expired = await sign({ exp: now() - 30 });
    const early = await sign({ nbf: now() + 30 });
    expect(await lenient(expired)).toBeDefined();
    expect(await lenient(early)).toBeDefined();
    expect(await verify(expired)).toBeUndefined();
    expect(await verify(early)).toBeUndefined();
    expect(await lenient(await sign({ exp: now() - 120 }))).toBeUndefined();
    expect(await lenient(await sign({ nbf: now() + 120 }))).toBeUndefined();
  });

  it("refuses a wrong or missing issuer and accepts any of a list", async () => {
    expect(await verify(await sign({ iss: "https://evil.example.com/" }))).toBeUndefined();
    expect(await verify(await sign({ iss: undefined }))).toBeUndefined();
    expect(await verifier({ issuer: ["https://a/", ISSUER] })(await sign({}))).toBeDefined();
  });

  it("refuses a wrong or missing audience; aud may be an array naming this API", async () => {
    expect(await verify(await sign({ aud: "https://other.example.com" }))).toBeUndefined();
    expect(await verify(await sign({ aud: undefined }))).toBeUndefined();
    expect(await verify(await sign({ aud: ["https://other.example.com"] }))).toBeUndefined();
    expect(await verify(await sign({ aud: ["https://other.example.com", AUDIENCE] }))).toBeDefined();
  });

  it("refuses a token without a subject", async () => {
    expect(await verify(await sign({ sub: undefined }))).toBeUndefined();
    expect(await verify(await sign({ sub: "" }))).toBeUndefined();
  });

  it("reads scopes from scope (space-separated) or scp (array, or string); none is no scope", async () => {
    expect((await verify(await sign({ scope: "a  b" })))?.scopes).toEqual(["a", "b"]);
    expect((await verify(await sign({ scope: undefined, scp: ["a", "b"] })))?.scopes).toEqual(["a", "b"]);
    expect((await verify(await sign({ scope: undefined, scp: "a b" })))?.scopes).toEqual(["a", "b"]);
    expect((await verify(await sign({ scope: undefined })))?.scopes).toEqual([]);
    expect(await verify(await sign({ scope: ["a", 1] }))).toBeUndefined();
    expect(await verify(await sign({ scope: undefined, scp: [1] }))).toBeUndefined();
    expect(await verify(await sign({ scope: 7 }))).toBeUndefined();
  });

  it("takes the token after Bearer from the generic oauth2 guard", async () => {
    const token = await sign({});
    const guard = { kind: "oauth2" as const, name: "oauth2", autoError: true };
    expect(await verify(`Bearer ${token}`, { scopes: [], scopeStr: "" }, guard)).toBeDefined();
    expect(await verify(`Bearer ${token}`)).toBeUndefined();
  });
});

describe("verifyJwt: forgeries and broken tokens fail closed", () => {
  const verify = verifier();
  const hs = verifier({ algorithms: ["HS256"], secret: SECRET });

  it("refuses alg none, with or without a signature", async () => {
    const unsigned = `${b64({ alg: "none" })}.${b64(claims())}`;
    expect(await verify(`${unsigned}.`)).toBeUndefined();
    expect(await verify(`${unsigned}.AAAA`)).toBeUndefined();
    expect(await hs(`${unsigned}.`)).toBeUndefined();
  });

  it("refuses HS256 signed with the RSA public key's PEM (algorithm confusion)", async () => {
    const forged = await mint("HS256", new TextEncoder().encode(rsaPem));
    expect(await verify(forged)).toBeUndefined();
    // Even when the configuration would list HS256 beside RS256, it cannot be started.
    expect(() => verifier({ algorithms: ["RS256", "HS256"] })).toThrow(TypeError);
    expect(() => verifier({ algorithms: ["HS256"] })).toThrow(TypeError);
    expect(() => verifier({ algorithms: ["HS256"], secret: rsaPem })).toThrow(/PEM/);
  });

  it("refuses an algorithm the configuration does not list, though the key would verify it", async () => {
    const ps = await mint("PS256", rsa.privateKey);
    expect(await verify(ps)).toBeUndefined();
    expect(await verifier({ algorithms: ["RS256", "PS256"] })(ps)).toBeDefined();
  });

  it("refuses a key whose type does not fit the algorithm", async () => {
    const ecVerify = verifier({ algorithms: ["ES256", "RS256"], publicKey: ec.publicKey });
    expect(await ecVerify(await mint("RS256", rsa.privateKey))).toBeUndefined();
    expect(await ecVerify(await mint("ES256", ec.privateKey))).toBeDefined();
    expect(() => verifier({ publicKey: ec.publicKey })).toThrow(/fits none/);
    expect(() => verifier({ publicKey: smallRsa.publicKey })).toThrow(/fits none/);
    expect(() => verifier({ publicKey: rsa.privateKey })).toThrow(/public key/);
    expect(() => verifier({ algorithms: ["HS256"], secret: "short" })).toThrow(/32 bytes/);
  });

  it("refuses a tampered payload or header", async () => {
    const [header, , signature] = (await mint("RS256", rsa.privateKey)).split(".");
    expect(await verify(`${header}.${b64(claims({ sub: "root" }))}.${signature}`)).toBeUndefined();
    const tampered = await mint("RS256", rsa.privateKey, { scope: "tasks:read" });
    const [h, p, s] = tampered.split(".");
    const more = b64({ ...JSON.parse(Buffer.from(p!, "base64url").toString()), scope: "tasks:read tasks:write" });
    expect(await verify(`${h}.${more}.${s}`)).toBeUndefined();
    expect(await verify(`${b64({ alg: "RS256", kid: "x" })}.${p}.${s}`)).toBeUndefined();
  });

  it("refuses every token that differs from a valid one in one character", async () => {
    const verify = verifier({ algorithms: ["ES256"], publicKey: ec.publicKey });
    const token = await mint("ES256", ec.privateKey);
    expect(await verify(token)).toBeDefined();
    let accepted = 0;
    for (let i = 0; i < token.length; i++) {
      const next = BASE64URL[(BASE64URL.indexOf(token[i]!) + 1) % BASE64URL.length] ?? "A";
      if ((await verify(token.slice(0, i) + next + token.slice(i + 1))) !== undefined) accepted++;
    }
    expect(accepted).toBe(0);
  });

  it("refuses anything but strict base64url in compact form", async () => {
    const token = await mint("HS256", new TextEncoder().encode(SECRET));
    expect(await hs(token)).toBeDefined();
    const [h, p, s] = token.split(".") as [string, string, string];
    const variants = [
      `${h}.${p}.${s}=`,
      `${h}=.${p}.${s}`,
      `${h}.${p}.${s.slice(0, -1)}+`,
      `${h}.${p.slice(0, -1)}/.${s}`,
      ` ${token}`,
      `${token}\n`,
      `${h}.${p}`,
      `${h}.${p}.${s}.${s}`,
      `${h}..${s}`,
      `${h}.${p}.${s.slice(0, -1)}${s.at(-1) === "A" ? "B" : "A"}`,
      // The same bytes with stray trailing bits: a non-canonical spelling.
      `${h}.${p}.${nonCanonical(s)}`,
      "",
      "not a token",
    ];
    for (const variant of variants) expect(await hs(variant), variant).toBeUndefined();
  });

  it("refuses a header or payload that is not a JSON object", async () => {
    expect(await hs(handMade({ alg: "HS256" }, claims()))).toBeDefined();
    expect(await hs(handMade(["HS256"], claims()))).toBeUndefined();
    expect(await hs(handMade({ alg: "HS256" }, [claims()]))).toBeUndefined();
    expect(await hs(handMade({ alg: "HS256" }, "ann"))).toBeUndefined();
    const input = `${Buffer.from('{"alg":"HS256"').toString("base64url")}.${b64(claims())}`;
    expect(await hs(`${input}.${createHmac("sha256", SECRET).update(input).digest("base64url")}`)).toBeUndefined();
  });

  it("refuses a header with crit, a kid that is no string and a typ that is no JWT", async () => {
    expect(await hs(handMade({ alg: "HS256", crit: ["exp"] }, claims()))).toBeUndefined();
    expect(await hs(handMade({ alg: "HS256", kid: 1 }, claims()))).toBeUndefined();
    expect(await hs(handMade({ alg: "HS256", typ: "dpop+jwt" }, claims()))).toBeUndefined();
    expect(await hs(handMade({ alg: "HS256", typ: "at+jwt" }, claims()))).toBeDefined();
    expect(await hs(handMade({ alg: "HS256", typ: "JWT" }, claims()))).toBeDefined();
  });

  it("refuses a token larger than maxTokenBytes unread", async () => {
    const big = await mint("RS256", rsa.privateKey, { pad: "x".repeat(9000) });
    expect(await verify(big)).toBeUndefined();
    expect(await verifier({ maxTokenBytes: 16_000 })(big)).toBeDefined();
  });

  it("never throws, whatever the token", async () => {
    const inputs = ["..", "a.b.c", "\u0000", "é.é.é", `${b64({ alg: "RS256" })}.${b64(claims())}.${"A".repeat(342)}`, `${b64({ alg: "__proto__" })}.e30.AA`];
    for (const input of inputs) await expect(verify(input)).resolves.toBeUndefined();
  });
});

describe("verifyJwt: keys from a JWKS", () => {
  type Jwk = Record<string, unknown>;
  let server: Server;
  let base = "";
  let fetches = 0;
  let keys: Jwk[] = [];
  let answer: ((res: import("node:http").ServerResponse) => void) | undefined;
  const rsaJwk = async (pair: Pair, kid: string): Promise<Jwk> => ({ ...(await exportJWK(pair.publicKey)), kid, use: "sig" });

  beforeAll(async () => {
    server = createServer((_req, res) => {
      fetches++;
      if (answer) return answer(res);
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ keys }));
    });
    base = `http://127.0.0.1:${await listen(server)}`;
  });
  afterAll(() => stop(server));

  const jwks = (options: Overrides = {}) => verifier({ jwksUrl: `${base}/.well-known/jwks.json`, jwksAllowLoopbackHttp: true, ...options });
  const reset = async (...pairs: [Pair, string][]) => {
    fetches = 0;
    answer = undefined;
    keys = await Promise.all(pairs.map(([pair, kid]) => rsaJwk(pair, kid)));
  };

  it("fetches the key set once for many tokens, and picks the key by kid", async () => {
    await reset([rsa, "one"], [otherRsa, "two"]);
    const verify = jwks();
    const tokens = await Promise.all([mint("RS256", rsa.privateKey, {}, { kid: "one" }), mint("RS256", otherRsa.privateKey, {}, { kid: "two" })]);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => verify(tokens[i % 2]!)));
    expect(results.every((principal) => principal?.subject === "ann")).toBe(true);
    expect(fetches).toBe(1);
    // The right key under the wrong kid does not verify.
    expect(await verify(await mint("RS256", rsa.privateKey, {}, { kid: "two" }))).toBeUndefined();
  });

  it("refetches on an unknown kid (key rotation)", async () => {
    await reset([rsa, "one"]);
    const verify = jwks({ jwksCooldownSeconds: 0 });
    expect(await verify(await mint("RS256", rsa.privateKey, {}, { kid: "one" }))).toBeDefined();
    keys = [await rsaJwk(otherRsa, "two")];
    expect(await verify(await mint("RS256", otherRsa.privateKey, {}, { kid: "two" }))).toBeDefined();
    expect(fetches).toBe(2);
  });

  it("refetches at most once per cooldown, however many unknown kids tokens name", async () => {
    await reset([rsa, "one"]);
    const verify = jwks({ jwksCooldownSeconds: 3600 });
    expect(await verify(await mint("RS256", rsa.privateKey, {}, { kid: "one" }))).toBeDefined();
    for (let i = 0; i < 20; i++) {
      expect(await verify(await mint("RS256", rsa.privateKey, {}, { kid: `made-up-${i}` }))).toBeUndefined();
    }
    expect(fetches).toBe(1);
    // Without the rate limit each made-up kid is one more fetch.
    await reset([rsa, "one"]);
    const eager = jwks({ jwksCooldownSeconds: 0 });
    for (let i = 0; i < 5; i++) await eager(await mint("RS256", rsa.privateKey, {}, { kid: `made-up-${i}` }));
    expect(fetches).toBe(5);
  });

  it("without a kid, uses the only key fitting the algorithm, never a guess among several", async () => {
    await reset([rsa, "one"]);
    const token = await mint("RS256", rsa.privateKey);
    expect(await jwks()(token)).toBeDefined();
    await reset([rsa, "one"], [otherRsa, "two"]);
    expect(await jwks()(token)).toBeUndefined();
  });

  it("ignores secret, private, encryption and other-algorithm keys of the set", async () => {
    await reset();
    keys = [
      { kty: "oct", k: Buffer.from(SECRET).toString("base64url"), kid: "oct" },
      { ...(await exportJWK(rsa.privateKey)), kid: "private" },
      { ...(await rsaJwk(rsa, "enc")), use: "enc" },
      { ...(await rsaJwk(rsa, "ps")), alg: "PS256" },
      { ...(await rsaJwk(rsa, "ops")), key_ops: ["encrypt"] },
    ];
    const verify = jwks();
    for (const kid of ["oct", "private", "enc", "ps", "ops"]) {
      expect(await verify(await mint("RS256", rsa.privateKey, {}, { kid })), kid).toBeUndefined();
    }
    expect(await verify(await mint("HS256", new TextEncoder().encode(SECRET), {}, { kid: "oct" }))).toBeUndefined();
    expect(() => jwks({ algorithms: ["HS256"] })).toThrow(TypeError);
  });

  it("refuses the token and tells onError when the JWKS cannot be had: an error status, too large (announced or not), not JSON", async () => {
    const answers: ((res: import("node:http").ServerResponse) => void)[] = [
      (res) => res.writeHead(503).end("down"),
      (res) => res.end(JSON.stringify({ keys: [], pad: "x".repeat(2000) })),
      // Chunked, so no Content-Length announces the size: the body is cut off while read.
      (res) => {
        res.write('{"keys":[],"pad":"');
        res.write("x".repeat(2000));
        res.end('"}');
      },
      (res) => res.end("{"),
      (res) => res.end(JSON.stringify({ keys: "none" })),
    ];
    for (const next of answers) {
      await reset([rsa, "one"]);
      answer = next;
      const errors: unknown[] = [];
      const verify = jwks({ jwksMaxBytes: 1000, onError: (error) => errors.push(error) });
      expect(await verify(await mint("RS256", rsa.privateKey, {}, { kid: "one" }))).toBeUndefined();
      expect(errors).toHaveLength(1);
    }
  });

  it("refuses when the provider is unreachable, then uses the keys once it answers again", async () => {
    await reset([rsa, "one"]);
    const errors: unknown[] = [];
    const unreachable = verifyJwt({
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ["RS256"],
      jwksUrl: "http://127.0.0.1:1/jwks",
      jwksAllowLoopbackHttp: true,
      onError: (error) => errors.push(error),
    });
    expect(await unreachable(await mint("RS256", rsa.privateKey, {}, { kid: "one" }))).toBeUndefined();
    expect(errors).toHaveLength(1);
    answer = (res) => res.writeHead(500).end();
    // An onError that throws does not make the verifier throw (that would be a 500).
    const verify = jwks({
      jwksCooldownSeconds: 0,
      onError: () => {
        throw new Error("the hook fails too");
      },
    });
    const token = await mint("RS256", rsa.privateKey, {}, { kid: "one" });
    expect(await verify(token)).toBeUndefined();
    answer = undefined;
    expect(await verify(token)).toBeDefined();
  });

  it("uses a key set for jwksCacheSeconds, then refetches; past that time, a failed fetch refuses", async () => {
    await reset([rsa, "one"]);
    const token = await mint("RS256", rsa.privateKey, {}, { kid: "one" });
    const errors: unknown[] = [];
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    try {
      const verify = jwks({ jwksCacheSeconds: 60, jwksCooldownSeconds: 0, onError: (error) => errors.push(error) });
      expect(await verify(token)).toBeDefined();
      vi.advanceTimersByTime(30_000);
      expect(await verify(token)).toBeDefined();
      expect(fetches).toBe(1);
      answer = (res) => res.writeHead(500).end();
      vi.advanceTimersByTime(31_000);
      expect(await verify(token)).toBeUndefined();
      expect([fetches, errors.length]).toEqual([2, 1]);
      answer = undefined;
      expect(await verify(token)).toBeDefined();
      expect(fetches).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it("fetches only over HTTPS unless the test option allows loopback HTTP", () => {
    const options = { issuer: ISSUER, audience: AUDIENCE, algorithms: ["RS256"] as JwtAlgorithm[] };
    expect(() => verifyJwt({ ...options, jwksUrl: `${base}/jwks` })).toThrow(/https/);
    expect(() => verifyJwt({ ...options, jwksUrl: "http://id.example.com/jwks", jwksAllowLoopbackHttp: true })).toThrow(/https/);
    expect(() => verifyJwt({ ...options, jwksUrl: "ftp://id.example.com/jwks" })).toThrow(/https/);
    expect(() => verifyJwt({ ...options, jwksUrl: "https://id.example.com/.well-known/jwks.json" })).not.toThrow();
    expect(() => verifyJwt({ ...options, jwksUrl: "https://x/jwks", publicKey: rsaPem })).toThrow(/exactly one/);
  });
});

describe("issueJwt", () => {
  const users: Record<string, { password: string; scopes: string[] }> = { ann: { password: "pw", scopes: ["tasks:read", "tasks:write"] } };
  const authenticate = (username: string, password: string) =>
    Object.hasOwn(users, username) && users[username]!.password === password ? { subject: username, scopes: users[username]!.scopes } : undefined;
  const request = (scopes: string[], password = "pw") => ({ username: "ann", password, scopes });
  const SIGNING: { alg: JwtAlgorithm; key: { privateKey: KeyObject } | { secret: string }; check: KeyObject }[] = [
    { alg: "RS256", key: { privateKey: rsa.privateKey }, check: rsa.publicKey },
    { alg: "PS256", key: { privateKey: rsa.privateKey }, check: rsa.publicKey },
    { alg: "ES256", key: { privateKey: ec.privateKey }, check: ec.publicKey },
    { alg: "EdDSA", key: { privateKey: ed.privateKey }, check: ed.publicKey },
    { alg: "HS256", key: { secret: SECRET }, check: createSecretKey(Buffer.from(SECRET)) },
  ];

  it.each(SIGNING)("$alg: its tokens verify under jose with exactly the requested scopes", async ({ alg, key, check }) => {
    const issue = issueJwt({ authenticate, algorithm: alg, ...key, keyId: "k1", issuer: ISSUER, audience: AUDIENCE, lifetimeSeconds: 600 });
    const result = await issue(request(["tasks:read"]));
    if ("error" in result) throw new Error(result.error);
    expect(result).toMatchObject({ token_type: "Bearer", expires_in: 600, scope: "tasks:read" });
    const { payload, protectedHeader } = await jwtVerify(result.access_token, check, { issuer: ISSUER, audience: AUDIENCE, algorithms: [alg] });
    expect(protectedHeader).toMatchObject({ alg, kid: "k1", typ: "at+jwt" });
    expect(payload).toMatchObject({ sub: "ann", scope: "tasks:read" });
    expect(payload.exp! - payload.iat!).toBe(600);
    expect(typeof payload.jti).toBe("string");
  });

  it("answers invalid_grant for wrong credentials and invalid_scope for a scope not granted", async () => {
    const issue = issueJwt({ authenticate, algorithm: "ES256", privateKey: ec.privateKey, issuer: ISSUER, audience: AUDIENCE });
    expect(await issue(request([], "wrong"))).toEqual({ error: "invalid_grant" });
    expect(await issue({ ...request([]), username: "bob" })).toEqual({ error: "invalid_grant" });
    expect(await issue(request(["tasks:read", "admin"]))).toEqual({ error: "invalid_scope" });
    const plain = await issue(request([]));
    expect(plain).not.toHaveProperty("scope");
    expect(plain).toHaveProperty("expires_in", 3600);
  });

  it("refuses, at start, a key that does not fit the algorithm", () => {
    const base = { authenticate, issuer: ISSUER, audience: AUDIENCE };
    expect(() => issueJwt({ ...base, algorithm: "ES256", privateKey: rsa.privateKey })).toThrow(/fit/);
    expect(() => issueJwt({ ...base, algorithm: "RS256", privateKey: rsa.publicKey })).toThrow(/fit/);
    expect(() => issueJwt({ ...base, algorithm: "HS256", privateKey: rsa.privateKey })).toThrow(/fit/);
    expect(() => issueJwt({ ...base, algorithm: "RS256", secret: SECRET })).toThrow(/fit/);
    expect(() => issueJwt({ ...base, algorithm: "none" as JwtAlgorithm, secret: SECRET })).toThrow(TypeError);
    expect(() => issueJwt({ ...base, algorithm: "RS256", privateKey: rsa.privateKey, secret: SECRET })).toThrow(/exactly one/);
  });

  it("signs tokens verifyJwt accepts, from a PEM and a JWK private key", async () => {
    const pem = rsa.privateKey.export({ type: "pkcs8", format: "pem" }) as string;
    const jwk = ed.privateKey.export({ format: "jwk" });
    const fromPem = issueJwt({ authenticate, algorithm: "RS256", privateKey: pem, issuer: ISSUER, audience: [AUDIENCE, "other"] });
    const fromJwk = issueJwt({ authenticate, algorithm: "EdDSA", privateKey: jwk, issuer: ISSUER, audience: AUDIENCE });
    const a = await fromPem(request(["tasks:write"]));
    const b = await fromJwk(request([]));
    if ("error" in a || "error" in b) throw new Error("refused");
    expect(await verifier()(a.access_token)).toMatchObject({ subject: "ann", scopes: ["tasks:write"] });
    expect(await verifier({ algorithms: ["EdDSA"], publicKey: ed.publicKey })(b.access_token)).toMatchObject({ subject: "ann", scopes: [] });
  });
});

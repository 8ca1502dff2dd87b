// The tokens of `codegen serve`'s built-in issuer have a lifetime: `expires_in` in every token
// response, an expired token refused (401) wherever it is presented, and expired tokens forgotten
// so the issuer's memory does not grow with every token it ever gave.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, TokenStore, serveFiles } from "../../src/serve/serve.js";
import { generateFiles } from "../../src/pipeline.js";
import { ROOT } from "../support/fixtures.js";
import { generateFixture } from "../support/generated.js";
import { START_TIMEOUT, call, expectAuthError, obj, postForm, form } from "./support.js";

const ann = { name: "ann", password: "secret", scopes: ["articles:write"] };
const principal = { subject: "ann", scopes: [] };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let blog: RunningServer;
beforeAll(async () => {
  blog = await serveFiles(await generateFixture("blog"), { port: 0, host: "127.0.0.1", users: [ann], tokenLifetime: 1 });
}, START_TIMEOUT);
afterAll(async () => {
  await blog?.close();
});

describe("codegen serve: token lifetime", () => {
  it("every token response carries expires_in; the token works until then and is refused (401) after", async () => {
    const tokens: string[] = [];
    for (const target of ["/token", "/_codegen/token"]) {
      const reply = await postForm(
        blog.url,
        target,
        form([
          ["grant_type", "password"],
          ["username", "ann"],
          ["password", "secret"],
          ["scope", "articles:write"],
        ]),
      );
      expect(reply.status, reply.text).toBe(200);
      expect(obj(reply)).toMatchObject({ token_type: "bearer", expires_in: 1, scope: "articles:write" });
      tokens.push(obj(reply).access_token as string);
    }
    for (const token of tokens) expect((await call(blog.url, "POST", "/articles", { json: { title: "t" }, token })).status).toBe(201);
    await sleep(1_100);
    for (const token of tokens) expectAuthError(await call(blog.url, "POST", "/articles", { json: { title: "t" }, token }), 401, "Bearer");
  });

  it("credentials that differ in length or only in the name are refused, not a fault", async () => {
    for (const [username, password] of [
      ["ann", "secret-and-more"],
      ["ann", "s"],
      ["anna", "secret"],
      ["bob", "secret"],
    ] as const) {
      const reply = await postForm(
        blog.url,
        "/_codegen/token",
        form([
          ["username", username],
          ["password", password],
        ]),
      );
      expect(reply.status, reply.text).toBe(400);
      expect(obj(reply).error).toBe("invalid_grant");
    }
  });
});

describe("codegen serve under a base path", () => {
  it("names the base path of the first server URL and its token endpoint under it; a token from there works", async () => {
    const lending = await serveFiles(await generateFixture("lending"), {
      port: 0,
      host: "127.0.0.1",
      users: [{ name: "ann", password: "secret", scopes: ["library:read"] }],
    });
    try {
      expect(lending.basePath).toBe("/v1");
      expect(lending.tokenPaths).toEqual(["/v1/_codegen/token"]);
      expect(blog.basePath).toBe("");
      expect(blog.tokenPaths).toEqual(["/_codegen/token"]);
      const reply = await postForm(
        lending.url,
        lending.tokenPaths[0]!,
        form([
          ["username", "ann"],
          ["password", "secret"],
          ["scope", "library:read"],
        ]),
      );
      expect(reply.status, reply.text).toBe(200);
      const token = obj(reply).access_token as string;
      expect((await call(lending.url + lending.basePath, "GET", "/members", { token })).status).toBe(200);
    } finally {
      await lending.close();
    }
  });
});

describe("codegen serve: a token endpoint whose path is percent-encoded", () => {
  it(
    "answers at the path's characters, percent-encoded in either case",
    async () => {
      // A declaration's URL must be a URI (decl/url-not-uri), so a path with `é` is written encoded.
      const text = [
        "codegen: 1",
        "info: {title: Shop, version: '1'}",
        "auth: [{guard: password, tokenUrl: /auth/jeton-caf%C3%A9}]",
        "resources: {orders: {fields: {total: number}}}",
      ].join("\n");
      const generated = await generateFiles({ cwd: ROOT }, "api.yaml", text, { outDir: "generated" });
      if (!generated.value) throw new Error(generated.diagnostics.map((d) => d.message).join("\n"));
      const shop = await serveFiles(generated.value, { port: 0, host: "127.0.0.1", users: [ann] });
      try {
        for (const target of ["/auth/jeton-caf%C3%A9", "/auth/jeton-caf%c3%a9"]) {
          const body = form([
            ["username", "ann"],
            ["password", "secret"],
          ]);
          const reply = await postForm(shop.url, target, body);
          expect(reply.status, `${target}: ${reply.text}`).toBe(200);
        }
      } finally {
        await shop.close();
      }
    },
    START_TIMEOUT,
  );
});

describe("TokenStore", () => {
  it("forgets expired tokens when the next one is issued, and refuses them when presented", async () => {
    const store = new TokenStore(0.05);
    const first = store.issue(principal);
    store.issue(principal);
    expect(store.verify(first)).toEqual(principal);
    expect(store.size).toBe(2);
    await sleep(80);
    const fresh = store.issue(principal);
    expect(store.size).toBe(1);
    expect(store.verify(first)).toBeUndefined();
    expect(store.verify(fresh)).toEqual(principal);
  });

  it("an expired token presented is forgotten at once", async () => {
    const store = new TokenStore(0.05);
    const token = store.issue(principal);
    await sleep(80);
    expect(store.size).toBe(1);
    expect(store.verify(token)).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it("holds at most `capacity` tokens: one more forgets the oldest", () => {
    const store = new TokenStore(3600, 3);
    const tokens = Array.from({ length: 4 }, () => store.issue(principal));
    expect(store.size).toBe(3);
    expect(store.verify(tokens[0]!)).toBeUndefined();
    for (const token of tokens.slice(1)) expect(store.verify(token)).toEqual(principal);
  });

  it("tokens are random and opaque, and only a token it issued is valid", () => {
    const store = new TokenStore(3600);
    const tokens = new Set(Array.from({ length: 100 }, () => store.issue(principal)));
    expect(tokens.size).toBe(100);
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const [token] = tokens;
    for (const other of ["", token!.slice(1), `${token}x`, token!.toUpperCase()]) expect(store.verify(other)).toBeUndefined();
  });
});

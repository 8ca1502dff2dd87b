import { describe, expect, it } from "vitest";
import { TOKEN_RESPONSE_HEADERS, isTokenFormContentType, parseTokenForm, tokenError } from "../../runtime/token-form.gen.js";
import type { TokenForm } from "../../runtime/token-form.gen.js";

const basic = (credentials: string): string => `Basic ${Buffer.from(credentials).toString("base64")}`;

const noStore = { "Cache-Control": "no-store", Pragma: "no-cache" };
const invalidRequest = (detail: Record<string, string>): object => ({
  ok: false,
  status: 400,
  headers: noStore,
  body: { error: "invalid_request", detail },
});
const required = "field required";
const badGrant = {
  ok: false,
  status: 400,
  headers: noStore,
  body: { error: "unsupported_grant_type", detail: { grant_type: 'must be "password"' } },
};
const bothWays = "must not be sent both in the body and by HTTP Basic authentication";
const badBasic = "must be HTTP Basic client credentials: base64 of id:secret";

describe("parseTokenForm", () => {
  const rows: {
    name: string;
    given: { body: string; form?: TokenForm; authorization?: string };
    want: object;
  }[] = [
    {
      name: "minimal permissive request",
      given: { body: "username=ann&password=pw" },
      want: { ok: true, value: { username: "ann", password: "pw", scopes: [] } },
    },
    {
      name: "every field",
      given: {
        body: "grant_type=password&username=ann&password=p%20w&scope=read+write&client_id=app&client_secret=s3",
      },
      want: {
        ok: true,
        value: {
          grantType: "password",
          username: "ann",
          password: "p w",
          scopes: ["read", "write"],
          clientId: "app",
          clientSecret: "s3",
        },
      },
    },
    {
      name: "strict form requires grant_type",
      given: { body: "username=ann&password=pw", form: "strict" },
      want: invalidRequest({ grant_type: required }),
    },
    {
      name: "strict form accepts password",
      given: { body: "grant_type=password&username=ann&password=pw", form: "strict" },
      want: {
        ok: true,
        value: { grantType: "password", username: "ann", password: "pw", scopes: [] },
      },
    },
    {
      name: "empty body names every required field (strict)",
      given: { body: "", form: "strict" },
      want: invalidRequest({ grant_type: required, username: required, password: required }),
    },
    {
      name: "empty body names every required field (permissive)",
      given: { body: "" },
      want: invalidRequest({ username: required, password: required }),
    },
    {
      name: "empty values count as absent",
      given: {
        body: "grant_type=&username=&password=pw&client_id=&client_secret=",
        form: "strict",
      },
      want: invalidRequest({ grant_type: required, username: required }),
    },
    {
      name: "permissive empty grant_type is absent",
      given: { body: "grant_type=&username=ann&password=pw&client_id=" },
      want: { ok: true, value: { username: "ann", password: "pw", scopes: [] } },
    },
    {
      name: "the last repeated field counts",
      given: { body: "username=first&username=last&password=a&password=b" },
      want: { ok: true, value: { username: "last", password: "b", scopes: [] } },
    },
    {
      name: "a repeated field ending empty is absent",
      given: { body: "username=ann&username=&password=pw" },
      want: invalidRequest({ username: required }),
    },
    {
      name: "values are not trimmed",
      given: { body: "username=+ann+&password=%09pw%20" },
      want: { ok: true, value: { username: " ann ", password: "\tpw ", scopes: [] } },
    },
    {
      name: "unknown fields are ignored",
      given: { body: "username=ann&password=pw&remember=1&__proto__=x" },
      want: { ok: true, value: { username: "ann", password: "pw", scopes: [] } },
    },
    {
      name: "grant_type is case-sensitive",
      given: { body: "grant_type=Password&username=ann&password=pw" },
      want: badGrant,
    },
    {
      name: "grant_type must match exactly",
      given: { body: "grant_type=password2&username=ann&password=pw" },
      want: badGrant,
    },
    {
      name: "another grant type wins over missing fields",
      given: { body: "grant_type=client_credentials", form: "strict" },
      want: badGrant,
    },
    {
      name: "scope splits on any run of white space",
      given: { body: "username=a&password=b&scope=%20read%09%0Awrite++admin%20" },
      want: {
        ok: true,
        value: { username: "a", password: "b", scopes: ["read", "write", "admin"] },
      },
    },
    {
      name: "blank scope is the empty list",
      given: { body: "username=a&password=b&scope=+%09+" },
      want: { ok: true, value: { username: "a", password: "b", scopes: [] } },
    },
    {
      name: "client credentials by HTTP Basic",
      given: { body: "username=a&password=b", authorization: basic("app:s3:cr%3At") },
      want: {
        ok: true,
        value: {
          username: "a",
          password: "b",
          scopes: [],
          clientId: "app",
          clientSecret: "s3:cr:t",
        },
      },
    },
    {
      name: "HTTP Basic values are form-urlencoded (RFC 6749 section 2.3.1)",
      given: { body: "username=a&password=b", authorization: basic("my+app%21:p%2Bw") },
      want: {
        ok: true,
        value: {
          username: "a",
          password: "b",
          scopes: [],
          clientId: "my app!",
          clientSecret: "p+w",
        },
      },
    },
    {
      name: "HTTP Basic scheme is case-insensitive, empty secret is none",
      given: {
        body: "username=a&password=b",
        authorization: `bAsIc ${Buffer.from("app:").toString("base64")}`,
      },
      want: { ok: true, value: { username: "a", password: "b", scopes: [], clientId: "app" } },
    },
    {
      name: "other Authorization schemes are ignored",
      given: { body: "username=a&password=b&client_id=app", authorization: "Bearer x" },
      want: { ok: true, value: { username: "a", password: "b", scopes: [], clientId: "app" } },
    },
    {
      name: "client credentials both ways",
      given: { body: "username=a&password=b&client_id=app", authorization: basic("app:s3") },
      want: invalidRequest({ client_id: bothWays }),
    },
    {
      name: "malformed HTTP Basic: not base64",
      given: { body: "username=a&password=b", authorization: "Basic !!!" },
      want: invalidRequest({ authorization: badBasic }),
    },
    {
      name: "malformed HTTP Basic: no colon",
      given: { body: "username=a&password=b", authorization: basic("app") },
      want: invalidRequest({ authorization: badBasic }),
    },
    {
      name: "malformed HTTP Basic: bad percent-encoding",
      given: { body: "username=a&password=b", authorization: basic("app%:x") },
      want: invalidRequest({ authorization: badBasic }),
    },
    {
      name: "malformed HTTP Basic: not UTF-8",
      given: {
        body: "username=a&password=b",
        authorization: `Basic ${Buffer.from([0xff, 0x3a, 0x61]).toString("base64")}`,
      },
      want: invalidRequest({ authorization: badBasic }),
    },
    {
      name: "every problem at once",
      given: { body: "client_secret=x", form: "strict", authorization: basic("app:s3") },
      want: invalidRequest({
        grant_type: required,
        username: required,
        password: required,
        client_secret: bothWays,
      }),
    },
  ];
  it.each(rows)("$name", ({ given, want }) => {
    const outcome = parseTokenForm(given.body, given.form ?? "permissive", given.authorization);
    expect(outcome).toEqual(want);
  });
});

describe("isTokenFormContentType", () => {
  const rows: { given: { contentType: string | undefined; bodyLength: number }; want: boolean }[] = [
    { given: { contentType: "application/x-www-form-urlencoded", bodyLength: 10 }, want: true },
    {
      given: { contentType: "Application/X-WWW-Form-Urlencoded; charset=UTF-8", bodyLength: 0 },
      want: true,
    },
    { given: { contentType: undefined, bodyLength: 0 }, want: true },
    { given: { contentType: undefined, bodyLength: 3 }, want: false },
    { given: { contentType: "application/json", bodyLength: 2 }, want: false },
    { given: { contentType: "multipart/form-data; boundary=x", bodyLength: 20 }, want: false },
    { given: { contentType: "", bodyLength: 0 }, want: false },
  ];
  it.each(rows)("$given -> $want", ({ given, want }) => {
    expect(isTokenFormContentType(given.contentType, given.bodyLength)).toBe(want);
  });
});

describe("tokenError", () => {
  it("answers 400 with the RFC 6749 code and no-store headers", () => {
    expect(tokenError("invalid_grant", { username: "incorrect username or password" })).toEqual({
      ok: false,
      status: 400,
      headers: TOKEN_RESPONSE_HEADERS,
      body: { error: "invalid_grant", detail: { username: "incorrect username or password" } },
    });
    expect(TOKEN_RESPONSE_HEADERS).toEqual({ "Cache-Control": "no-store", Pragma: "no-cache" });
  });
});

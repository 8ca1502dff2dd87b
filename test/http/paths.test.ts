// Path templates with text around parameters (`/files/{id}.json`,
// `{sha}.{diffType}`, `{name}:cancel`, `report-{year}-{month}.{format}`), a `#` in a path
// template, and path parameters in label and matrix style, over real HTTP on 127.0.0.1 against
// the generated server of fixtures/openapi/paths; hostile requests (encoded `/`, `..`, very long
// and very many segments); and the diagnostics of templates the router cannot serve.

import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../support/fixtures.js";
import { call, closeLocal, compileText, expectError, generateText, listenLocal, obj, raw, START_TIMEOUT } from "./support.js";
import type { HandlerFunction, Json } from "./support.js";

const DOCUMENT = readFileSync(path.join(ROOT, "fixtures/openapi/paths/openapi.yaml"), "utf8");

describe("path templates and path styles, over HTTP (item 2)", () => {
  let server: Server;
  let at = "";
  let dispose = async () => {};

  beforeAll(async () => {
    const compiled = await compileText(DOCUMENT);
    dispose = compiled.dispose;
    // Every handler answers which operation ran and the path parameters it was given.
    const echo =
      (operationId: string): HandlerFunction =>
      (input) => ({ status: 200, body: { operationId, path: input.path ?? {}, query: input.query ?? {} } });
    const ids = [
      "getFileJson",
      "getFile",
      "getLatestFile",
      "getSubscriptions",
      "getCommitDiff",
      "cancelOperation",
      "getOperation",
      "listTags",
      "untagResource",
      "getLabel",
      "getMatrix",
      "getSimpleObject",
      "getReport",
      "getTwice",
      "getTagDetail",
      "targetA",
      "targetB",
    ];
    const paths = Object.fromEntries(ids.map((id) => [id, echo(id)]));
    const evil = { getEvilXByTheIdXJs: echo("evil") };
    server = compiled.api.createServer({ handlers: { paths, evil }, verifyToken: () => undefined });
    at = await listenLocal(server);
  }, START_TIMEOUT);
  afterAll(async () => {
    await closeLocal(server);
    await dispose();
  });

  const get = async (target: string, method = "GET"): Promise<Json> => {
    const reply = await call(at, method, target);
    expect(reply.status, reply.text).toBe(200);
    return obj(reply);
  };

  it.each<[string, string, Json]>([
    ["a suffix after the parameter", "/files/42.json", { id: 42 }],
    ["a literal segment over a template", "/files/latest.json", {}],
    ["a whole-parameter segment where the suffix is not there", "/files/42.xml", { id: "42.xml" }],
    ["a prefix before the parameter", "/feeds/subscriptions.xml", { format: "xml" }],
    ["two parameters split by text: the first takes the shortest", "/commits/abc.patch.gz", { sha: "abc", diffType: "patch.gz" }],
    ["a Google-style custom method", "/v1/operations-1:cancel", { name: "operations-1" }],
    ["an encoded `:` stays in the value", "/v1/a%3Ab:cancel", { name: "a:b" }],
    ["several parameters in one segment", "/report-2024-05.csv", { year: 2024, month: 5, format: "csv" }],
    ["values decoded after matching: an encoded `.` is not the separator", "/commits/a%2Eb.diff", { sha: "a.b", diffType: "diff" }],
    ["an encoded `/` is part of one value, never a segment boundary", "/commits/a%2Fb.diff", { sha: "a/b", diffType: "diff" }],
    ["hostile text around a parameter, matched as a client sends it", "/evil/x*/'42'%60$[x]*/%20%E2%80%A8.js", { 'the "id"': "'42" }],
    ["escapes in lower-case hex match the template's", "/evil/x*/42'%60$%5bx%5D*/%20%e2%80%a8.js", { 'the "id"': "42" }],
  ])("%s: %s", async (_name, target, expected) => {
    const body = await get(target, target.includes(":cancel") ? "POST" : "GET");
    expect(body.path).toEqual(expected);
  });

  it("reads a name the template uses twice at each place: each validated, the last one given", async () => {
    expect((await get("/twice/1/of/2.json")).path).toEqual({ id: 2 });
    expectError(await call(at, "GET", "/twice/10/of/2.json"), 400, ["id"]);
  });

  it("routes to the operation with the most literal text", async () => {
    expect((await get("/files/42.json")).operationId).toBe("getFileJson");
    expect((await get("/files/latest.json")).operationId).toBe("getLatestFile");
    expect((await get("/files/42.xml")).operationId).toBe("getFile");
    expect((await get("/v1/x:cancel", "POST")).operationId).toBe("cancelOperation");
    // The template's text must be there: `:cancel` on GET is the whole-parameter route's.
    expect((await get("/v1/x:cancel")).operationId).toBe("getOperation");
  });

  it("validates the values of a template segment by their schemas", async () => {
    expectError(await call(at, "GET", "/feeds/subscriptions.pdf"), 400, ["format"]);
    expectError(await call(at, "GET", "/report-1800-13.csv"), 400, ["year", "month"]);
    // `abc.json`: the suffix matches, `abc` is not an integer.
    expectError(await call(at, "GET", "/files/abc.json"), 400, ["id"]);
  });

  it("answers paths that differ only after `#` on the one URL the wire carries", async () => {
    expect((await get("/tags/arn%3Aaws%3Ax")).operationId).toBe("listTags");
    const deleted = await get("/tags/arn%3Aaws%3Ax?tagKeys=a", "DELETE");
    expect(deleted).toMatchObject({ operationId: "untagResource", path: { resourceArn: "arn:aws:x" }, query: { tagKeys: ["a"] } });
    // `#detail`: the request that carries `detail` is that operation's, any other the path's without `#`.
    expect(await get("/tags/x?detail=true")).toMatchObject({ operationId: "getTagDetail", query: { detail: true } });
    expect((await get("/tags/x")).operationId).toBe("listTags");
    // A client never sends a fragment; one sent anyway is not part of the path.
    expect((await call(at, "GET", "/tags/x%23tagKeys")).status).toBe(200);
  });

  it("tells apart operations of one URL and method by the header their `#` names (AWS's X-Amz-Target)", async () => {
    const post = (target?: string) => call(at, "POST", "/", target === undefined ? {} : { headers: { "X-Target": target } });
    expect(obj(await post("Svc.A")).operationId).toBe("targetA");
    expect(obj(await post("Svc.B")).operationId).toBe("targetB");
    // No variant takes it: the first one's own parameters refuse it, naming the header.
    expectError(await post(), 400, ["X-Target"]);
    expectError(await post("Svc.C"), 400, ["X-Target"]);
  });

  it.each<[string, string, Json]>([
    ["label", "/label/.5/.3,4,5/.a.b.c/.x,1,y,2/.x=3.y=4", { id: 5, ids: [3, 4, 5], xids: ["a", "b", "c"], point: { x: 1, y: 2 }, xpoint: { x: 3, y: 4 } }],
    ["label, an encoded delimiter", "/label/.0/.1/.a%2Eb/.x,1,y,2/.x=3.y=4", { id: 0, ids: [1], xids: ["a.b"], point: { x: 1, y: 2 }, xpoint: { x: 3, y: 4 } }],
    [
      "matrix",
      "/matrix/;id=5/;ids=3,4,5/;xids=a;xids=b/;point=x,1,y,2/;x=3;y=4",
      { id: 5, ids: [3, 4, 5], xids: ["a", "b"], point: { x: 1, y: 2 }, xpoint: { x: 3, y: 4 } },
    ],
    [
      "matrix, an encoded `,` inside an item",
      "/matrix/;id=5/;ids=3/;xids=a%2Cb/;point=x,1,y,2/;x=3;y=4",
      { id: 5, ids: [3], xids: ["a,b"], point: { x: 1, y: 2 }, xpoint: { x: 3, y: 4 } },
    ],
    ["simple objects", "/simple/x,1,y,2/x=3,y=4", { point: { x: 1, y: 2 }, xpoint: { x: 3, y: 4 } }],
  ])("reads %s path parameters: %s", async (_name, target, expected) => {
    expect((await get(target)).path).toEqual(expected);
  });

  it.each<[string, string, string[]]>([
    ["label without its `.`", "/label/5/.3/.a/.x,1,y,2/.x=3.y=4", ["id"]],
    ["matrix under another name", "/matrix/;ID=5/;ids=3/;xids=a/;point=x,1,y,2/;x=3;y=4", ["id"]],
    ["matrix given twice", "/matrix/;id=5;id=6/;ids=3/;xids=a/;point=x,1,y,2/;x=3;y=4", ["id"]],
    ["an object with a key and no value", "/simple/x,1,y/x=3,y=4", ["point"]],
    ["an object with a key no schema allows, and a value of the wrong type", "/simple/x,1,y,2,z,3/x=a,y=4", ["point.z", "xpoint.x"]],
    ["an object naming a key twice", "/simple/x,1,x,2/x=3,y=4", ["point"]],
    ["an item of the wrong type", "/label/.5/.3,a/.a/.x,1,y,2/.x=3.y=4", ["ids[1]"]],
  ])("refuses %s (400, naming it)", async (_name, target, fields) => {
    expectError(await call(at, "GET", target), 400, fields);
  });

  it("keeps a `__proto__` key of a path object an own property, refused by the schema", async () => {
    expectError(await call(at, "GET", "/simple/__proto__,1,x,1,y,2/x=3,y=4"), 400, ["point.__proto__"]);
  });

  describe("hostile requests", () => {
    it("`..` and `.` segments are text, never a step up (sent as is)", async () => {
      expect((await raw(at, ["GET /commits/.. HTTP/1.1"])).status).toBe(404);
      expect((await raw(at, ["GET /files/../files/1.json HTTP/1.1"])).status).toBe(404);
      const dots = await raw(at, ["GET /commits/...x HTTP/1.1"]);
      expect(dots.status).toBe(200);
      // The first parameter takes the shortest non-empty text: `.`, then the separator, then the rest.
      expect(obj(dots).path).toEqual({ sha: ".", diffType: ".x" });
      // An empty label array is `.` alone, which a fetch client would remove as a dot segment.
      const empty = await raw(at, ["GET /label/.0/./.a/.x,1,y,2/.x=3.y=4 HTTP/1.1"]);
      expect(obj(empty).path).toMatchObject({ ids: [], xids: ["a"] });
    });

    it("a very long segment is matched in one pass (answers within the hang guard)", async () => {
      // 12,000 characters of `a.` (Node's request head limit is 16 KiB): a backtracking matcher
      // of `{sha}.{diffType}` against a segment of separators has cubic work for three parameters.
      const long = "a.".repeat(6_000);
      const reply = await call(at, "GET", `/report-${long}`);
      expect(reply.status).toBe(404);
      const diff = await get(`/commits/${long}z`);
      expect(diff.path).toEqual({ sha: "a", diffType: `${"a.".repeat(5_999)}z` });
    });

    it("many segments find no route", async () => {
      expect((await call(at, "GET", `/commits/${"a.b/".repeat(3_000)}`)).status).toBe(404);
    });
  });
});

describe("path templates the router cannot serve are left out, warned of at their place", () => {
  const document = (paths: string) => `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
${paths}`;
  const operation = (method: string, id: string) => `    ${method}:
      operationId: ${id}
      responses: {"204": {description: none}}`;

  // (A document written by others: the rest of it is generated; the left-out operation, last
  // named, has no route; a declaration's paths are codegen's own and never have these problems.)
  it.each<[string, string, number, RegExp, string]>([
    ["two templates that tie", `  /a/{x}.{y}:\n${operation("get", "one")}\n  /a/{x}-{y}:\n${operation("get", "two")}`, 9, /may match the same requests/, "two"],
    [
      "paths after `#` that one request could take both",
      `  /t/{arn}#keys:\n${operation("delete", "one")}\n  /t/{arn}#keys=1:\n${operation("delete", "two")}`,
      9,
      /may match the same requests/,
      "two",
    ],
    [
      "identical templates with other names",
      `  /a/{x}:\n${operation("get", "one")}\n  /a/{y}:\n${operation("get", "two")}`,
      9,
      /may match the same requests/,
      "two",
    ],
    ["two parameters with no text between", `  /a/{x}{y}:\n${operation("get", "one")}`, 5, /no text between them/, "one"],
    ["a brace without its pair", `  /a/{x:\n${operation("get", "one")}`, 5, /without its `}`/, "one"],
    ["a closing brace alone", `  /a/x}:\n${operation("get", "one")}`, 5, /without its `{`/, "one"],
  ])("%s", async (_name, paths, line, message, leftOut) => {
    const result = await generateText(document(paths));
    expect(result.value).toBeDefined();
    expect(result.diagnostics.map((d) => [d.severity, d.code])).toEqual([["warning", "openapi/rendered-otherwise"]]);
    expect(result.diagnostics[0]!.message).toMatch(message);
    expect(result.diagnostics[0]!.message).toMatch(/Instead, the server leaves this path's operations out/);
    expect(result.diagnostics[0]!.location?.line).toBe(line);
    const api = result.value!.find((f) => f.path === "api.gen.ts")!.contents;
    expect(api).not.toContain(`operationId: "${leftOut}"`);
    if (leftOut === "two") expect(api).toContain('operationId: "one"');
  });

  it.each<[string, string]>([
    ["more literal text decides", `  /a/{x}.json:\n${operation("get", "one")}\n  /a/{x}.{y}:\n${operation("get", "two")}`],
    ["one path without `#` and one with it, the same method", `  /t/{arn}:\n${operation("delete", "one")}\n  /t/{arn}#keys:\n${operation("delete", "two")}`],
    ["other methods on one URL", `  /t/{arn}:\n${operation("get", "one")}\n  /t/{arn}#keys:\n${operation("delete", "two")}`],
    ["a name used twice (RFC 6570 allows it)", `  /a/{x}/b/{x}.json:\n${operation("get", "one")}`],
    ["templates that cannot match one segment", `  /a/x{y}.json:\n${operation("get", "one")}\n  /a/y{x}.json:\n${operation("get", "two")}`],
  ])("no diagnostic when the router can tell them apart: %s", async (_name, paths) => {
    const result = await generateText(document(paths));
    expect(result.diagnostics).toEqual([]);
    expect(result.value).toBeDefined();
  });

  it("reads a template expression no parameter declares as a string, and leaves out a declared one the template does not name", async () => {
    const result = await generateText(
      document(`  /a/{x}.{y}:
    get:
      operationId: one
      parameters:
        - {name: y, in: path, required: true, schema: {type: integer}}
        - {name: z, in: path, required: true, schema: {type: integer}}
      responses: {"204": {description: none}}`),
    );
    expect(result.diagnostics).toEqual([]);
    const handlers = result.value!.find((file) => file.path.startsWith("operations/"))!.contents;
    expect(handlers).toContain("path: { y: number; x: string }");
    // Whole segments too: the old reader gave `y` the value of `{x}`, the first segment's.
    const whole = await generateText(
      document(
        `  /b/{x}/{y}:\n    get:\n      operationId: two\n      parameters: [{name: y, in: path, required: true, schema: {type: integer}}]\n      responses: {"204": {description: none}}`,
      ),
    );
    const types = whole.value!.find((file) => file.path.startsWith("operations/"))!.contents;
    expect(types).toContain("path: { y: number; x: string }");
  });
});

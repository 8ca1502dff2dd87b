// The model of OpenAPI documents written by others (src/compile/api/foreign.ts, src/compile/api/operations.ts):
// names made safe and stable, refs resolved, handler groups, and every construct it cannot render
// reported at its pointer.

import type { OpenAPIV3_1 } from "openapi-types";
import { describe, expect, it } from "vitest";
import { UnsupportedConstructs, buildApiModel } from "../../../src/compile/api/build.js";
import { MIN_EXPANDED_VALUES, prepareDocument } from "../../../src/compile/api/foreign.js";
import { NameGate, SchemaTypeNames, UnsupportedConstruct } from "../../../src/compile/api/names.js";
import { typeExpression } from "../../../src/compile/api/schema-code.js";

type Json = { [key: string]: unknown };
const ok = { "200": { description: "OK" } };

function doc(paths: Json, extra: Json = {}): OpenAPIV3_1.Document {
  return { openapi: "3.1.0", info: { title: "t", version: "1" }, paths, ...extra } as unknown as OpenAPIV3_1.Document;
}

const view = (document: OpenAPIV3_1.Document) => buildApiModel(document, { inputPath: "api.yaml" });

function problems(document: OpenAPIV3_1.Document): string[] {
  try {
    view(document);
  } catch (error) {
    if (error instanceof UnsupportedConstructs) return error.problems.map((p) => `${p.pointer}: ${p.reason}`);
    throw error;
  }
  return [];
}

describe("prepareDocument", () => {
  it("leaves a document whose refs all name component schemas (codegen's own) as it is: the same object", () => {
    const document = doc({}, { components: { schemas: { A: { type: "string" }, B: { $ref: "#/components/schemas/A" } } } });
    expect(prepareDocument(document).document).toBe(document);
  });

  it("gives schema names that are not identifiers an identifier of their words, and rewrites the refs to them", () => {
    const document = doc(
      {},
      {
        components: {
          schemas: {
            "Pet-Category": { type: "string" },
            "pet.category": { type: "integer" },
            "2fa": { type: "boolean" },
            User: { type: "object", properties: { c: { $ref: "#/components/schemas/Pet-Category" }, d: { $ref: "#/components/schemas/pet.category" } } },
          },
        },
      },
    );
    const { document: prepared, problems: found } = prepareDocument(document);
    const schemas = (prepared as unknown as { components: { schemas: Json } }).components.schemas;
    expect(Object.keys(schemas)).toEqual(["PetCategory", "PetCategory2", "_2fa", "User"]);
    expect(schemas.User).toEqual({
      type: "object",
      properties: { c: { $ref: "#/components/schemas/PetCategory" }, d: { $ref: "#/components/schemas/PetCategory2" } },
    });
    expect(found).toEqual([]);
    // The input is not changed.
    expect(Object.keys((document as unknown as { components: { schemas: Json } }).components.schemas)).toContain("Pet-Category");
  });

  it("replaces refs to parameters, responses and parts of schemas by what they point at; examples and extensions are left alone", () => {
    const document = doc(
      {
        "/a/{id}": {
          get: {
            parameters: [{ $ref: "#/components/parameters/Id" }],
            responses: { "200": { $ref: "#/components/responses/Ok" } },
            "x-note": { $ref: "#/nowhere" },
          },
        },
      },
      {
        components: {
          parameters: { Id: { name: "id", in: "path", required: true, schema: { $ref: "#/components/schemas/Box/properties/size" } } },
          responses: {
            Ok: { description: "OK", content: { "application/json": { schema: { $ref: "#/components/schemas/Box" }, example: { $ref: "#/not/followed" } } } },
          },
          schemas: { Box: { type: "object", properties: { size: { type: "integer", minimum: 1 } } } },
        },
      },
    );
    const { document: prepared, problems: found } = prepareDocument(document);
    const get = (prepared as unknown as { paths: { "/a/{id}": { get: Json } } }).paths["/a/{id}"].get;
    expect(get.parameters).toEqual([{ name: "id", in: "path", required: true, schema: { type: "integer", minimum: 1 } }]);
    expect(get.responses).toEqual({
      "200": { description: "OK", content: { "application/json": { schema: { $ref: "#/components/schemas/Box" }, example: { $ref: "#/not/followed" } } } },
    });
    expect(get["x-note"]).toEqual({ $ref: "#/nowhere" });
    expect(found).toEqual([]);
  });

  it("reports a ref that refers to itself outside components/schemas, one that points at nothing, and one not bundled", () => {
    const document = doc(
      {
        "/a": {
          get: {
            parameters: [{ $ref: "#/components/parameters/Loop" }, { $ref: "#/components/parameters/Missing" }, { $ref: "other.yaml#/P" }],
            responses: ok,
          },
        },
      },
      { components: { parameters: { Loop: { $ref: "#/components/parameters/Loop" } } } },
    );
    const reasons = prepareDocument(document).problems.map((p) => `${p.pointer}: ${p.reason}`);
    expect(reasons).toEqual([
      // A target is walked once, at its own place: the loop is reported where it is written.
      '#/components/parameters/Loop: the reference "#/components/parameters/Loop" refers to itself; move the schema into components/schemas and refer to it by name',
      '#/paths/~1a/get/parameters/1: the reference "#/components/parameters/Missing" points at nothing',
      '#/paths/~1a/get/parameters/2: the reference "other.yaml#/P" was not bundled into the document',
    ]);
  });

  it("follows a ref into an array by index only: `length` names no element (RFC 6901)", () => {
    const list = { parameters: [{ name: "q", in: "query", schema: { type: "string" } }] };
    const document = doc(
      { "/a": { get: { parameters: [{ $ref: "#/x-list/parameters/0" }, { $ref: "#/x-list/parameters/length" }], responses: ok } } },
      { "x-list": list },
    );
    const { document: prepared, problems: found } = prepareDocument(document);
    const get = (prepared as unknown as { paths: { "/a": { get: { parameters: unknown[] } } } }).paths["/a"].get;
    expect(get.parameters[0]).toEqual(list.parameters[0]);
    expect(found.map((p) => `${p.pointer}: ${p.reason}`)).toEqual([
      '#/paths/~1a/get/parameters/1: the reference "#/x-list/parameters/length" points at nothing',
    ]);
  });
});

describe("prepareDocument: a ref to a part of a schema that refers to itself (codat)", () => {
  const part = { $ref: "#/components/schemas/Report/definitions/node" };
  const node = { type: "object", properties: { children: { type: "array", items: part } } };

  it("makes the part a schema of its own, named after its place (unique), and refers to it by name at every use", () => {
    const document = doc(
      { "/a": { post: { requestBody: { content: { "application/json": { schema: part } } }, responses: ok } } },
      { components: { schemas: { Report: { type: "object", properties: { root: part }, definitions: { node } }, ReportDefinitionsNode: { type: "string" } } } },
    );
    const { document: prepared, problems } = prepareDocument(document);
    expect(problems).toEqual([]);
    const schemas = (prepared as unknown as { components: { schemas: Json } }).components.schemas;
    const named = { $ref: "#/components/schemas/ReportDefinitionsNode2" };
    expect(schemas.ReportDefinitionsNode2).toEqual({ type: "object", properties: { children: { type: "array", items: named } } });
    expect(schemas.ReportDefinitionsNode).toEqual({ type: "string" });
    expect((schemas.Report as { properties: Json }).properties.root).toEqual(named);
    const body = (prepared as unknown as { paths: Json }).paths["/a"] as { post: { requestBody: { content: Json } } };
    expect(body.post.requestBody.content["application/json"]).toEqual({ schema: named });
  });

  it("does so for a part outside components/schemas too, and the view builds", () => {
    const loop = { $ref: "#/paths/~1a/post/requestBody/content/application~1json/schema/properties/tree" };
    const tree = { type: "object", properties: { kids: { type: "array", items: loop } } };
    const document = doc({
      "/a": { post: { requestBody: { content: { "application/json": { schema: { type: "object", properties: { tree } } } } }, responses: ok } },
    });
    const { document: prepared, problems: found } = prepareDocument(document);
    expect(found).toEqual([]);
    const schemas = (prepared as unknown as { components: { schemas: Json } }).components.schemas;
    expect(Object.keys(schemas)).toEqual(["PathsAPostRequestBodyContentApplicationJsonSchemaPropertiesTree"]);
    expect(problems(document)).toEqual([]);
  });
});

describe("prepareDocument reads the grammar: keywords, names and data by their place", () => {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  type Prepared = { paths: Json; components: { schemas: Json } };
  const prepared = (document: OpenAPIV3_1.Document) => prepareDocument(document).document as unknown as Prepared;

  it("a property named like a keyword (`examples`, `example`, `x-a`, `$ref`, `default`) is a schema: its ref is followed", () => {
    const properties = Object.fromEntries(["examples", "example", "x-a", "$ref", "default", "properties", "__proto__"].map((key) => [key, ref("Pet-Name")]));
    const document = doc({}, { components: { schemas: { "Pet-Name": { type: "string" }, Box: { type: "object", properties } } } });
    const box = prepared(document).components.schemas.Box as { properties: Json };
    expect(Object.keys(box.properties)).toEqual(Object.keys(properties));
    for (const value of Object.values(box.properties)) expect(value).toEqual(ref("PetName"));
    // `__proto__` stays an own property, and the object's prototype is untouched.
    expect(Object.getPrototypeOf(box.properties)).toBe(Object.prototype);
  });

  it("a ref's own keys win over its target's, and a ref alone is its target (one shared copy)", () => {
    const shared = { description: "Not found", content: { "application/json": { schema: ref("Pet-Name") } } };
    const responses = (at: string) => ({
      "404": { $ref: "#/components/responses/NotFound" },
      "410": { $ref: "#/components/responses/NotFound", description: `Gone from ${at}` },
    });
    const document = doc(
      { "/a": { get: { responses: responses("a") } }, "/b": { get: { responses: responses("b") } } },
      { components: { schemas: { "Pet-Name": { type: "string" }, Box: { ...ref("Pet-Name"), description: "a box" } }, responses: { NotFound: shared } } },
    );
    const result = prepared(document);
    const answers = (path: string) => (result.paths[path] as { get: { responses: Record<string, Json> } }).get.responses;
    expect(answers("/a")["404"]).toEqual({ description: "Not found", content: { "application/json": { schema: ref("PetName") } } });
    expect(answers("/a")["404"]).toBe(answers("/b")["404"]);
    expect(answers("/a")["410"]).toEqual({ ...answers("/a")["404"], description: "Gone from a" });
    expect(answers("/b")["410"]!.description).toBe("Gone from b");
    expect(result.components.schemas.Box).toEqual({ description: "a box", ...ref("PetName") });
  });

  it("a `$ref` in data (an example, a default, an enum, an extension) is data, left as written", () => {
    const data = { $ref: "#/components/schemas/Pet-Name" };
    const schema = { type: "object", example: data, examples: [data], default: data, enum: [data], const: data, "x-a": data };
    const document = doc(
      {
        "/a": {
          "x-b": data,
          get: { responses: { "200": { description: "ok", content: { "application/json": { schema, example: data, examples: { one: { value: data } } } } } } },
        },
      },
      { components: { schemas: { "Pet-Name": { type: "string" } } } },
    );
    const media = (prepared(document).paths["/a"] as { get: { responses: { "200": { content: { "application/json": Json } } } } }).get.responses["200"].content[
      "application/json"
    ];
    expect(media).toEqual({ schema, example: data, examples: { one: { value: data } } });
    expect((prepared(document).paths["/a"] as Json)["x-b"]).toEqual(data);
  });

  it("names of headers, media types and statuses are names: `x-rate-limit` is a header, not an extension", () => {
    const document = doc(
      {
        "/a": {
          get: { responses: { "200": { description: "ok", headers: { "x-rate-limit": { schema: { $ref: "#/components/schemas/Box/properties/n" } } } } } },
        },
      },
      { components: { schemas: { Box: { type: "object", properties: { n: { type: "integer" } } } } } },
    );
    const get = (prepared(document).paths["/a"] as { get: { responses: { "200": { headers: Json } } } }).get;
    expect(get.responses["200"].headers["x-rate-limit"]).toEqual({ schema: { type: "integer" } });
  });

  it("a ref's target is walked once and shared by every use, however many", () => {
    const uses = Array.from({ length: 50 }, () => ({ $ref: "#/components/parameters/Limit" }));
    const document = doc(
      { "/a": { get: { parameters: uses, responses: ok } } },
      { components: { parameters: { Limit: { name: "limit", in: "query", schema: { type: "integer" } } } } },
    );
    const parameters = (prepared(document).paths["/a"] as { get: { parameters: unknown[] } }).get.parameters;
    expect(new Set(parameters).size).toBe(1);
    expect(parameters[0]).toEqual({ name: "limit", in: "query", schema: { type: "integer" } });
  });

  it("refs that fan out past the bound are cut off at the deepest place that holds too much, reported once", () => {
    const schemas: Json = { L0: { type: "object", properties: { x: { type: "string" } } } };
    for (let n = 1; n <= 40; n++) {
      const to = { $ref: `#/components/schemas/L${n - 1}/properties/x` };
      schemas[`L${n}`] = { type: "object", properties: { x: { type: "object", properties: { a: to, b: to } } } };
    }
    const { problems: found } = prepareDocument(doc({}, { components: { schemas } }));
    expect(found.map((p) => p.kind)).toEqual(["too-large"]);
    expect(found[0]!.limit).toBe(MIN_EXPANDED_VALUES);
    expect(found[0]!.pointer).toMatch(/^#\/components\/schemas\/L\d+\/properties\/x\/properties$/);
  });
});

describe("the name gate (names.ts)", () => {
  it("gives a schema's type name only for a schema of the document whose name is a type name", () => {
    const names = new SchemaTypeNames({ Pet: {}, string: {}, "A }; evil()": {} });
    expect(names.typeName("Pet")).toBe("Pet");
    for (const name of ["Missing", "string", "A }; evil()"]) expect(() => names.typeName(name)).toThrow(UnsupportedConstruct);
    // A type is never written from a name the gate refuses.
    expect(() => typeExpression({ properties: { examples: { $ref: "#/components/schemas/A%20%7D%3B%20evil()" } } }, "T.", names)).toThrow(UnsupportedConstruct);
  });

  it("lets only identifiers through as code", () => {
    const gate = new NameGate();
    expect(gate.identifier("listPets", "#/paths", "operationId")).toBe("listPets");
    expect(gate.problems).toEqual([]);
    for (const name of ["a b", "class", "1a", "a;b", ""]) gate.identifier(name, "#/paths", "operationId");
    expect(gate.problems).toHaveLength(5);
    for (const problem of gate.problems) expect(problem).toBeInstanceOf(UnsupportedConstruct);
  });

  it("a schema named like a predefined type gets a name of its own", () => {
    const { document } = prepareDocument(doc({}, { components: { schemas: { string: { type: "string" }, object: { type: "object" } } } }));
    expect(Object.keys((document as unknown as { components: { schemas: Json } }).components.schemas)).toEqual(["String", "Object"]);
  });
});

describe("operations written by others", () => {
  it("derive a stable name from method and path when operationId is absent, make given ones identifiers, and number clashes", () => {
    const api = view(
      doc({
        "/pets/{petId}/photos": { get: { tags: ["pets"], responses: ok } },
        "/pets": { get: { tags: ["pets"], operationId: "list-pets", responses: ok }, post: { tags: ["pets"], operationId: "ListPets", responses: ok } },
        "/other": { delete: { tags: ["pets"], operationId: "delete", responses: ok } },
      }),
    );
    expect(api.operationGroups.map((g) => g.operations.map((o) => o.operationId))).toEqual([
      ["getPetsByPetIdPhotos", "listPets", "ListPets2", "deleteOperation"],
    ]);
    // Building twice gives the same names: they depend on the document only.
    expect(view(doc({ "/pets/{petId}/photos": { get: { responses: ok } } })).operationGroups[0]!.operations[0]!.operationId).toBe("getPetsByPetIdPhotos");
  });

  it("are grouped by first tag, else by first path segment, in order of appearance, with safe names", () => {
    const api = view(
      doc({
        "/store/order": { get: { tags: ["Store Orders", "pets"], responses: ok } },
        "/users/{id}": { get: { responses: ok } },
        "/{id}": { get: { responses: ok } },
      }),
    );
    expect(api.operationGroups.map((g) => [g.property, g.interfaceName, g.fileName])).toEqual([
      ["storeOrders", "StoreOrdersHandlers", "store-orders"],
      ["users", "UsersHandlers", "users"],
      // `default` is a reserved word: not a bare property name.
      ["defaultOperations", "DefaultOperationsHandlers", "default-operations"],
    ]);
  });

  it("a tag that would break out of a comment or a path stays inside: safe property, file name and comment", () => {
    const api = view(doc({ "/a": { get: { tags: ["*/ ../../etc\nx"], responses: ok } } }));
    const group = api.operationGroups[0]!;
    expect(group.fileName).toMatch(/^[a-z0-9-]+$/);
    expect(group.property).toMatch(/^[A-Za-z_$][\w$]*$/);
    expect(group.labelComment).not.toMatch(/\*\/|\n/);
  });

  it("every construct codegen cannot render is reported at its pointer, all of them at once", () => {
    const found = problems(
      doc({
        "/files/{name}{ext}": {
          get: {
            parameters: [
              { name: "name", in: "path", required: true, schema: { type: "string" } },
              { name: "ext", in: "path", required: true, schema: { type: "string" } },
            ],
            responses: ok,
          },
        },
        "/a": {
          get: {
            parameters: [
              { name: "c", in: "cookie", style: "deepObject", schema: { type: "object" } },
              { name: "q", in: "query", content: { "application/json": { schema: { type: "object" } }, "text/plain": { schema: { type: "string" } } } },
              { name: "o", in: "query", style: "pipeDelimited", explode: true, schema: { type: "object" } },
              { name: "m", in: "header", schema: { type: "array", items: { type: "object" } } },
            ],
            requestBody: { content: { "application/json": { schema: { type: "object", dependentSchemas: { a: { required: ["b"] } } } } } },
            security: [{ nowhere: [] }],
            responses: ok,
          },
        },
      }),
    );
    expect(found).toEqual([
      '#/paths/~1files~1{name}{ext}: the path segment "{name}{ext}" has two parameters with no text between them, which no request can tell apart',
      '#/paths/~1a/get/parameters/0: the style "deepObject" of the cookie parameter "c" is not supported; codegen reads form cookie parameters',
      '#/paths/~1a/get/parameters/1/content: the query parameter "q" must have exactly one media type in `content`, and codegen reads JSON ones (application/json)',
      '#/paths/~1a/get/parameters/2: the pipeDelimited style does not define exploded objects (OpenAPI 3.1 section 4.8.12.4); set `explode: false` or use deepObject for "o"',
      '#/paths/~1a/get/parameters/3: the header parameter "m" is an array of arrays or objects, which no simple parameter can carry unambiguously; describe it with `content: application/json`, make it a field of a deepObject parameter, or use a JSON body',
      "#/paths/~1a/get/requestBody/content/application~1json/schema/dependentSchemas: the keyword `dependentSchemas` is not one codegen's request validator checks; express the constraint with the supported keywords, or check it in the handler",
      '#/paths/~1a/get/security/0: the security scheme "nowhere" is not defined in components/securitySchemes',
    ]);
  });

  it("name a request body's schema by the media type it is under, not by the first JSON one", () => {
    const schema = { type: "object", dependentSchemas: { a: { required: ["b"] } } };
    const found = problems(
      doc({ "/a": { post: { requestBody: { content: { "application/a+json": {}, "application/vnd.c+json": { schema } } }, responses: ok } } }),
    );
    expect(found).toEqual([
      "#/paths/~1a/post/requestBody/content/application~1vnd.c+json/schema/dependentSchemas: the keyword `dependentSchemas` is not one codegen's request validator checks; express the constraint with the supported keywords, or check it in the handler",
    ]);
  });

  it("map security schemes: OAuth2 password and authorization code and http bearer to the bearer guard, other flows to the generic guard, the rest to hooks", () => {
    const api = view(
      doc(
        { "/a": { get: { security: [{ pw: [] }, { cc: [] }, { key: [] }, { basic: [] }, { oidc: [] }, { tls: [] }, { bearer: [] }], responses: ok } } },
        {
          components: {
            securitySchemes: {
              pw: { type: "oauth2", flows: { password: { tokenUrl: "/t", scopes: {} } } },
              cc: { type: "oauth2", flows: { clientCredentials: { tokenUrl: "/t", scopes: {} } } },
              key: { type: "apiKey", in: "query", name: "k" },
              basic: { type: "http", scheme: "basic" },
              oidc: { type: "openIdConnect", openIdConnectUrl: "https://example.com/.well-known/openid-configuration" },
              tls: { type: "mutualTLS" },
              bearer: { type: "http", scheme: "Bearer" },
            },
          },
        },
      ),
    );
    expect(api.api.securitySchemes).toEqual({
      pw: { kind: "bearer" },
      cc: { kind: "oauth2" },
      key: { kind: "hook", in: "query", name: "k" },
      basic: { kind: "hook", in: "authorization", scheme: "basic" },
      oidc: { kind: "bearer" },
      tls: { kind: "hook", in: "none" },
      bearer: { kind: "bearer" },
    });
    expect(api.securityHooks.map((h) => h.name)).toEqual(["key", "basic", "tls"]);
  });

  it("refuses, at the requirement, what the runtime cannot check exactly, for any document: never read as something laxer", () => {
    const schemes = {
      odd: { type: "custom" },
      noPlace: { type: "apiKey", in: "body", name: "k" },
      noName: { type: "apiKey", in: "header" },
      noWord: { type: "http" },
      spaced: { type: "http", scheme: "Bearer\r\nX-Injected: 1" },
      pw: { type: "oauth2", flows: { password: { tokenUrl: "/t", scopes: {} } } },
    };
    const found = problems(
      doc(
        {
          "/a": { get: { security: [{ pw: [] }, { odd: [] }, { noPlace: [], pw: [] }, { noName: [] }, { noWord: [] }, { spaced: [] }], responses: ok } },
          "/b": { get: { security: [{ pw: "write" }, { pw: ["read", 7] }], responses: ok } },
          "/c": { get: { security: { pw: [] }, responses: ok } },
          "/d": { get: { responses: ok } },
        },
        { components: { securitySchemes: schemes }, security: [{ nowhere: [] }] },
      ),
    );
    const refused = "codegen cannot check it, and never lets requests in unchecked";
    expect(found).toEqual([
      `#/paths/~1a/get/security/1: the security scheme "odd" has the type "custom", which codegen has no check for; ${refused}`,
      `#/paths/~1a/get/security/2: the security scheme "noPlace" sends its key neither in a header, nor in the query, nor in a cookie; ${refused}`,
      `#/paths/~1a/get/security/3: the security scheme "noName" names no header, query parameter or cookie for its key; ${refused}`,
      `#/paths/~1a/get/security/4: the security scheme "noWord" names no HTTP authentication scheme in \`scheme\`; ${refused}`,
      `#/paths/~1a/get/security/5: the security scheme "spaced" names no HTTP authentication scheme in \`scheme\`; ${refused}`,
      '#/paths/~1b/get/security/0: the scopes of "pw" are not a list of names',
      '#/paths/~1b/get/security/1: the scopes of "pw" are not a list of names',
      "#/paths/~1c/get/security: `security` is not a list of security requirements",
      '#/security/0: the security scheme "nowhere" is not defined in components/securitySchemes',
    ]);
  });

  it("reads a codegen document's own operations with the same mapping: several schemes per requirement, API keys as hooks", () => {
    const resource = { "x-codegen-resource": { collection: "notes", singular: "note" }, type: "object", properties: { id: { type: "integer" } } };
    const remove = (security: unknown) => ({
      "/notes/{id}": {
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }],
        delete: { operationId: "deleteNote", "x-codegen-operation": "delete", security, responses: { "204": { description: "Deleted" } } },
      },
    });
    const components = {
      schemas: { Note: resource },
      securitySchemes: {
        Bearer: { type: "oauth2", flows: { password: { tokenUrl: "/token", scopes: { write: "Write" } } }, "x-codegen-guard": "password" },
        ApiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
        Odd: { type: "http", scheme: "no token" },
      },
    };
    const api = view(doc(remove([{ Bearer: ["write"], ApiKey: [] }]), { components }));
    // The routes as api.gen.ts declares them.
    const routes = api.api.routes;
    const route = routes.find((r) => JSON.stringify(r).includes("deleteNote")) as unknown as { methods: { DELETE: Json } };
    expect(route.methods.DELETE.security).toEqual([
      [
        { scheme: "Bearer", scopes: ["write"] },
        { scheme: "ApiKey", scopes: [] },
      ],
    ]);
    expect(api.api.securitySchemes).toEqual({ Bearer: { kind: "bearer" }, ApiKey: { kind: "hook", in: "header", name: "X-API-Key" } });
    expect(api.securityHooks.map((h) => h.name)).toEqual(["ApiKey"]);
    expect(api.resources[0]!.methods[0]!.inputType.text).toContain("principal: Principal;");
    expect(problems(doc(remove([{ Bearer: ["write"] }, { Nowhere: [] }]), { components }))).toEqual([
      '#/paths/~1notes~1{id}/delete/security/1: the security scheme "Nowhere" is not defined in components/securitySchemes',
    ]);
    expect(problems(doc(remove([{ Odd: [] }]), { components }))).toHaveLength(1);
  });
});

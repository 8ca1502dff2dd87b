import { describe, expect, it } from "vitest";
import { expandDeclaration } from "../../../src/compile/expand/expand.js";
import { baseDeclaration, validDeclaration } from "../../support/declare.js";

const expand = (value: Record<string, unknown>) => expandDeclaration(validDeclaration(value)) as any;

describe("expandDeclaration", () => {
  it("emits the index, both paths of a resource and the token endpoint, in order", () => {
    const doc = expand(baseDeclaration());
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(doc.paths)).toEqual(["/", "/products", "/products/{id}", "/token"]);
    expect(Object.keys(doc.paths["/products"])).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/products/{id}"])).toEqual(["parameters", "get", "put", "patch", "delete"]);
    expect(doc.paths["/"].get).toMatchObject({ operationId: "getIndex", security: [] });
  });

  const operations = [
    { method: "get", path: "/products", want: { operationId: "listProducts", success: "200", errors: ["400", "406", "500", "503", "504"] } },
    {
      method: "post",
      path: "/products",
      want: { operationId: "createProduct", success: "201", errors: ["400", "401", "403", "406", "413", "415", "500", "503", "504"] },
    },
    { method: "get", path: "/products/{id}", want: { operationId: "getProduct", success: "200", errors: ["304", "400", "404", "406", "500", "503", "504"] } },
    {
      method: "put",
      path: "/products/{id}",
      want: { operationId: "replaceProduct", success: "200", errors: ["400", "401", "403", "404", "406", "412", "413", "415", "428", "500", "503", "504"] },
    },
    {
      method: "patch",
      path: "/products/{id}",
      want: { operationId: "updateProduct", success: "200", errors: ["400", "401", "403", "404", "406", "412", "413", "415", "428", "500", "503", "504"] },
    },
    {
      method: "delete",
      path: "/products/{id}",
      want: { operationId: "deleteProduct", success: "204", errors: ["400", "401", "403", "404", "406", "412", "428", "500", "503", "504"] },
    },
  ];
  it.each(operations)("$method $path answers every status it can give", ({ method, path, want }) => {
    const operation = expand(baseDeclaration()).paths[path][method];
    expect(operation.operationId).toBe(want.operationId);
    expect(Object.keys(operation.responses)).toEqual([want.success, ...want.errors]);
    expect(operation.tags).toEqual(["products"]);
  });

  it("declares WWW-Authenticate on 401 and a Location on 201", () => {
    const doc = expand(baseDeclaration());
    const post = doc.paths["/products"].post;
    expect(post.responses["401"]).toEqual({ $ref: "#/components/responses/Unauthorized" });
    expect(doc.components.responses.Unauthorized).toMatchObject({
      headers: { "WWW-Authenticate": { schema: { type: "string" } } },
      content: { "application/json": { schema: { $ref: "#/components/schemas/AuthError" } } },
    });
    expect(post.responses["201"].headers.Location).toBeDefined();
  });

  it("adds 409 to PUT and PATCH only where a status machine exists", () => {
    const value = baseDeclaration();
    (value.resources as any).products.status = { values: ["draft", "live"], transitions: { draft: ["live"] } };
    const doc = expand(value);
    expect(doc.paths["/products/{id}"].put.responses["409"]).toBeDefined();
    expect(doc.paths["/products/{id}"].delete.responses["409"]).toBeUndefined();
    expect(doc.components.schemas.ProductStatus).toEqual({ type: "string", enum: ["draft", "live"] });
    expect(doc.paths["/products"].get.parameters).toContainEqual(expect.objectContaining({ name: "status", in: "query" }));
  });

  it("maps access to security: scopes per guard, {} last for optional, [] for public", () => {
    const value = baseDeclaration();
    value.auth = [
      { guard: "password", tokenUrl: "/token", scopes: { a: "A", b: "B" } },
      { guard: "authorizationCode", authorizationUrl: "https://x.test/a", tokenUrl: "https://x.test/t", scopes: { a: "A" } },
    ];
    (value.resources as any).products.access = { list: "public", get: "optional", create: ["a"], replace: ["a", "b"], update: "authenticated" };
    const doc = expand(value);
    const security = (path: string, method: string) => doc.paths[path][method].security;
    expect(security("/products", "get")).toEqual([]);
    expect(security("/products/{id}", "get")).toEqual([{ OAuth2PasswordBearer: [] }, { OAuth2AuthorizationCodeBearer: [] }, {}]);
    expect(security("/products", "post")).toEqual([{ OAuth2PasswordBearer: ["a"] }, { OAuth2AuthorizationCodeBearer: ["a"] }]);
    expect(security("/products/{id}", "put")).toEqual([{ OAuth2PasswordBearer: ["a", "b"] }]);
    expect(security("/products/{id}", "patch")).toEqual([{ OAuth2PasswordBearer: [] }, { OAuth2AuthorizationCodeBearer: [] }]);
  });

  it("writes security schemes with scopes always, description and refreshUrl only when declared", () => {
    const value = baseDeclaration();
    value.auth = [
      { guard: "password", tokenUrl: "/token" },
      { guard: "authorizationCode", authorizationUrl: "https://x.test/a", tokenUrl: "https://x.test/t", refreshUrl: "https://x.test/r", description: "SSO" },
    ];
    delete (value.resources as any).products.access;
    const schemes = expand(value).components.securitySchemes;
    expect(schemes.OAuth2PasswordBearer).toEqual({
      type: "oauth2",
      flows: { password: { tokenUrl: "/token", scopes: {} } },
      "x-codegen-form": "permissive",
      "x-codegen-guard": "password",
    });
    expect(schemes.OAuth2AuthorizationCodeBearer).toMatchObject({
      description: "SSO",
      flows: { authorizationCode: { authorizationUrl: "https://x.test/a", tokenUrl: "https://x.test/t", refreshUrl: "https://x.test/r", scopes: {} } },
    });
  });

  it("writes TokenRequest exactly for the permissive and the strict form", () => {
    const permissive = expand(baseDeclaration()).components.schemas.TokenRequest;
    expect(permissive.required).toEqual(["username", "password"]);
    expect(permissive.properties.grant_type).toEqual({ type: ["string", "null"], pattern: "^password$" });
    expect(permissive.properties).toMatchObject({
      scope: { type: "string", default: "" },
      client_id: { type: ["string", "null"] },
      client_secret: { type: ["string", "null"], format: "password" },
      password: { type: "string", format: "password" },
    });
    const value = baseDeclaration();
    (value.auth as any)[0].form = "strict";
    const strict = expand(value).components.schemas.TokenRequest;
    expect(strict.required).toEqual(["grant_type", "username", "password"]);
    expect(strict.properties.grant_type).toEqual({ type: "string", pattern: "^password$" });
  });

  it("uses 3.1 type arrays for nullable fields and lets PATCH clear optional ones", () => {
    const value = baseDeclaration();
    (value.resources as any).products.fields = { name: { type: "string", required: true }, note: { type: "string", nullable: true }, size: "integer" };
    const schemas = expand(value).components.schemas;
    expect(schemas.Product.properties.note.type).toEqual(["string", "null"]);
    expect(schemas.Product.properties.size.type).toBe("integer");
    expect(schemas.ProductPatch.properties.size.type).toEqual(["integer", "null"]);
    expect(schemas.ProductPatch.properties.name.type).toBe("string");
    expect(schemas.ProductPatch.required).toBeUndefined();
    expect(schemas.ProductInput.required).toEqual(["name"]);
    expect(JSON.stringify(schemas)).not.toContain('"nullable"');
  });

  it("keeps writeOnly fields out of the representation and readOnly ones out of required input", () => {
    const value = baseDeclaration();
    (value.resources as any).products.fields = {
      secret: { type: "string", writeOnly: true, required: true },
      sold: { type: "integer", readOnly: true, required: true },
    };
    const schemas = expand(value).components.schemas;
    expect(Object.keys(schemas.Product.properties)).toEqual(["id", "sold", "links"]);
    expect(schemas.ProductInput.required).toEqual(["secret"]);
  });

  it("copies x- keys where they stood and records what OpenAPI cannot say in x-codegen-*", () => {
    const value: Record<string, any> = { ...baseDeclaration(), "x-team": "shop" };
    (value.resources as any).products["x-owner"] = "catalogue";
    (value.resources as any).products.fields.name["x-label"] = "Name";
    const doc = expand(value);
    expect(doc["x-team"]).toBe("shop");
    expect(doc.components.schemas.Product["x-owner"]).toBe("catalogue");
    expect(doc.components.schemas.Product.properties.name["x-label"]).toBe("Name");
    expect(doc.components.schemas.Product["x-codegen-resource"]).toEqual({ collection: "products", singular: "product", id: "integer", links: [] });
  });

  it("builds a component only where an operation uses it (docs/openapi.md, components.schemas)", () => {
    const value: Record<string, any> = baseDeclaration();
    const fields = { name: { type: "string", required: true } };
    value.resources = {
      ...value.resources,
      shelves: { fields, operations: ["list", "get"] },
      orders: { fields, operations: ["create"] },
      notes: { fields, operations: ["get", "update"] },
    };
    const names = (doc: any) => Object.keys(doc.components.schemas);
    expect(names(expand(value))).toEqual([
      "Product",
      "ProductInput",
      "ProductPatch",
      "Shelf",
      "Order",
      "OrderInput",
      "Note",
      "NotePatch",
      "Error",
      "AuthError",
      "Link",
      "Index",
      "TokenRequest",
      "TokenResponse",
    ]);
    // Every operation public: no guard refuses, so no AuthError; no refusal shared either.
    const open: Record<string, any> = { ...baseDeclaration(), auth: undefined };
    open.resources = { shelves: { fields, operations: ["list", "get"] } };
    const doc = expand(open);
    expect(names(doc)).toEqual(["Shelf", "Error", "Link", "Index"]);
    expect(Object.keys(doc.components.responses)).not.toContain("Unauthorized");
  });

  it("keeps no component alive for a `$ref` that only an extension's data holds", () => {
    const value: Record<string, any> = baseDeclaration();
    value.resources.products.operations = ["list", "get"];
    value.resources.products["x-see"] = { $ref: "#/components/schemas/ProductPatch" };
    const doc = expand(value);
    expect(doc.components.schemas.Product["x-see"]).toEqual({ $ref: "#/components/schemas/ProductPatch" });
    expect(Object.keys(doc.components.schemas)).not.toContain("ProductPatch");
  });

  it("gives a document servers [{url: /}] when none are declared", () => {
    expect(expand(baseDeclaration()).servers).toEqual([{ url: "/" }]);
  });
});

/** Every operation object of a document, with its method and path. */
function operationsOf(doc: any): { where: string; operation: any }[] {
  return Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
    ["get", "put", "post", "patch", "delete"].filter((m) => m in item).map((m) => ({ where: `${m} ${path}`, operation: item[m] })),
  );
}

/** The products resource of the base declaration with a status machine, options and actions. */
function lending(): Record<string, any> {
  const value: Record<string, any> = baseDeclaration();
  value.resources.products = {
    ...value.resources.products,
    fields: { name: { type: "string", required: true }, price: { type: "number", minimum: 0, filter: true }, secret: { type: "string", writeOnly: true } },
    status: { values: ["draft", "live", "gone"], transitions: { draft: ["live"], live: ["gone"] } },
    links: { publish: { method: "PATCH" }, edit: { method: "PATCH", when: ["draft"] } },
    operations: {
      list: {
        summary: "Browse products",
        page: { size: 10, max: 50 },
        sort: ["price", "id"],
        query: { q: { type: "string", maxLength: 20, description: "Text" } },
      },
      get: {},
      create: { errors: { 409: "The name is taken", 422: "Too many products" } },
      update: { description: "Changes a product.", errors: { 409: "The product is locked" }, "x-audit": true },
    },
    actions: {
      publish: { when: ["draft"], to: "live", body: { note: { type: "string", required: true } }, errors: { 422: "The product has no price" } },
      retire: { method: "DELETE", access: "public" },
    },
  };
  return value;
}

describe("expandDeclaration: what docs portals read", () => {
  it("gives every operation a summary, a description and a tag, the index and the token endpoint too", () => {
    const doc = expand(lending());
    for (const { where, operation } of operationsOf(doc)) {
      expect(operation.summary, where).toMatch(/\S/);
      expect(operation.description, where).toMatch(/\S/);
      expect(operation.tags, where).toHaveLength(1);
      expect(
        doc.tags.map((t: any) => t.name),
        where,
      ).toContain(operation.tags[0]);
    }
    expect(doc.paths["/"].get.tags).toEqual(["Index"]);
    expect(doc.paths["/token"].post.tags).toEqual(["Authentication"]);
    expect(doc.tags.map((t: any) => t.name)).toEqual(["Index", "products", "Authentication"]);
  });

  it("copies declared summaries and descriptions, and derives the others", () => {
    const list = expand(lending()).paths["/products"].get;
    expect(list.summary).toBe("Browse products");
    expect(list.description).toContain("At most `limit` products per page (10 unless asked, at most 50)");
    const update = expand(lending()).paths["/products/{id}"].patch;
    expect(update).toMatchObject({ summary: "Update a product", description: "Changes a product.", "x-audit": true });
  });

  it("gives every error response an example that its schema accepts", () => {
    const doc = expand(lending());
    const responses = operationsOf(doc).flatMap(({ where, operation }) =>
      Object.entries(operation.responses)
        .filter(([status]) => status >= "400")
        .map(([status, r]: [string, any]) => ({ where: `${where} ${status}`, r })),
    );
    for (const { where, r } of responses) {
      const response = r.$ref ? doc.components.responses[r.$ref.split("/").pop()] : r;
      const media = response.content["application/json"];
      const examples = Object.values(media.examples) as { value: any }[];
      expect(examples.length, where).toBeGreaterThan(0);
      const schema = media.schema.$ref.split("/").pop();
      for (const { value } of examples) {
        if (schema === "Error") expect(value, where).toEqual({ error: expect.any(String), detail: expect.any(Object) });
        else expect(value, where).toEqual({ detail: expect.any(String) });
      }
    }
  });

  it("defines each shared answer once, only when an operation refers to it", () => {
    const withAuth = expand(lending()).components.responses;
    expect(Object.keys(withAuth)).toEqual([
      "Unauthorized",
      "Forbidden",
      "NotAcceptable",
      "PreconditionFailed",
      "ContentTooLarge",
      "UnsupportedMediaType",
      "PreconditionRequired",
      "InternalServerError",
      "ServiceUnavailable",
      "GatewayTimeout",
    ]);
    const value = baseDeclaration();
    delete value.auth;
    delete (value.resources as any).products.access;
    (value.resources as any).products.operations = ["list", "get"];
    expect(Object.keys(expand(value).components.responses)).toEqual(["NotAcceptable", "InternalServerError", "ServiceUnavailable", "GatewayTimeout"]);
    const refs = JSON.stringify(expand(value).paths).match(/#\/components\/responses\/\w+/g);
    expect(new Set(refs)).toEqual(
      new Set([
        "#/components/responses/NotAcceptable",
        "#/components/responses/InternalServerError",
        "#/components/responses/ServiceUnavailable",
        "#/components/responses/GatewayTimeout",
      ]),
    );
  });
});

describe("expandDeclaration: operation options", () => {
  it("adds declared errors with their descriptions and the Error schema, merged with the server's own", () => {
    const doc = expand(lending());
    const create = doc.paths["/products"].post;
    expect(Object.keys(create.responses)).toEqual(["201", "400", "401", "403", "406", "409", "413", "415", "422", "500", "503", "504"]);
    expect(create.responses["409"]).toMatchObject({
      description: "The name is taken",
      content: {
        "application/json": { schema: { $ref: "#/components/schemas/Error" }, examples: { refused: { value: { error: "The name is taken", detail: {} } } } },
      },
    });
    expect(create["x-codegen-errors"]).toEqual(["409", "422"]);
    const update = doc.paths["/products/{id}"].patch.responses["409"];
    expect(update.description).toBe("- The status change is not along a declared transition.\n- The product is locked");
    expect(Object.keys(update.content["application/json"].examples)).toEqual(["transition", "refused"]);
    expect(doc.paths["/products/{id}"].get["x-codegen-errors"]).toBeUndefined();
  });

  it("documents paging, sorting and extra query parameters of a list", () => {
    const list = expand(lending()).paths["/products"].get;
    expect(list.parameters.map((p: any) => p.name)).toEqual(["price", "status", "q", "sort", "limit", "cursor"]);
    const byName = Object.fromEntries(list.parameters.map((p: any) => [p.name, p]));
    expect(byName.q).toEqual({ name: "q", in: "query", required: false, description: "Text", schema: { type: "string", maxLength: 20 } });
    expect(byName.sort).toMatchObject({ style: "form", explode: false, schema: { type: "array", items: { enum: ["price", "-price", "id", "-id"] } } });
    expect(byName.limit.schema).toEqual({ type: "integer", minimum: 1, maximum: 50, default: 10 });
    expect(byName.cursor.schema).toEqual({ type: "string", minLength: 1 });
    expect(list.responses["200"].headers.Link.schema).toEqual({ type: "string" });
    expect(list).toMatchObject({ "x-codegen-page": { size: 10, max: 50 }, "x-codegen-sort": ["price", "id"] });
  });

  it("leaves a list without page or sort as it was", () => {
    const list = expand(baseDeclaration()).paths["/products"].get;
    expect(list.parameters).toBeUndefined();
    expect(list.responses["200"].headers).toBeUndefined();
    expect(list["x-codegen-page"]).toBeUndefined();
  });
});

describe("expandDeclaration: actions", () => {
  it("makes each action an operation below the object, with its body schema and answers", () => {
    const doc = expand(lending());
    expect(Object.keys(doc.paths)).toEqual(["/", "/products", "/products/{id}", "/products/{id}/publish", "/products/{id}/retire", "/token"]);
    const publish = doc.paths["/products/{id}/publish"].post;
    expect(publish).toMatchObject({
      operationId: "publishProduct",
      summary: "Publish a product",
      requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/ProductPublishRequest" } } } },
      security: [{ OAuth2PasswordBearer: ["products:write"] }],
      "x-codegen-action": { name: "publish", when: ["draft"], to: "live" },
      "x-codegen-errors": ["422"],
    });
    expect(publish.description).toBe(
      "Runs `publish` on the product with this id and answers the product. Allowed while its status is `draft`. Afterwards its status is `live`.",
    );
    expect(Object.keys(publish.responses)).toEqual(["200", "400", "401", "403", "404", "406", "409", "412", "413", "415", "422", "428", "500", "503", "504"]);
    expect(publish.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Product" });
    expect(publish.responses["409"].content["application/json"].examples.state.value).toEqual({
      error: "Conflict",
      detail: { status: "publish is allowed only in draft; the status is live" },
    });
    expect(doc.components.schemas.ProductPublishRequest).toMatchObject({
      type: "object",
      properties: { note: { type: "string" } },
      required: ["note"],
      additionalProperties: false,
    });
  });

  it("takes no body, no 409 and the action's own access when it declares none of them", () => {
    const retire = expand(lending()).paths["/products/{id}/retire"].delete;
    expect(retire.requestBody).toBeUndefined();
    expect(Object.keys(retire.responses)).toEqual(["200", "400", "404", "406", "412", "428", "500", "503", "504"]);
    expect(retire.security).toEqual([]);
    expect(retire["x-codegen-action"]).toEqual({ name: "retire" });
  });

  it("offers each action as a link in its `when` states, replacing a declared link of its name in place", () => {
    const links = expand(lending()).components.schemas.Product["x-codegen-resource"].links;
    expect(links).toEqual([
      { rel: "publish", method: "POST", when: ["draft"], action: "publish" },
      { rel: "edit", method: "PATCH", when: ["draft"] },
      { rel: "retire", method: "DELETE", action: "retire" },
    ]);
  });
});

describe("expandDeclaration: 409 only where the server can answer it", () => {
  it("leaves 409 out of PUT and PATCH when every state may move to every other", () => {
    const value = baseDeclaration();
    (value.resources as any).products.status = { values: ["a", "b"], transitions: { a: ["b"], b: ["a"] } };
    const item = expand(value).paths["/products/{id}"];
    expect(item.put.responses["409"]).toBeUndefined();
    expect(item.patch.responses["409"]).toBeUndefined();
  });
});

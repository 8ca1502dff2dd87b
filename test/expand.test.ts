import { describe, expect, it } from "vitest";
import { expandDeclaration } from "../src/expand/expand.js";
import { baseDeclaration, validDeclaration } from "./support/declare.js";

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
    { method: "get", path: "/products", want: { operationId: "listProducts", success: "200", errors: ["400", "406", "500"] } },
    { method: "post", path: "/products", want: { operationId: "createProduct", success: "201", errors: ["400", "401", "403", "406", "413", "415", "500"] } },
    { method: "get", path: "/products/{id}", want: { operationId: "getProduct", success: "200", errors: ["400", "404", "406", "500"] } },
    { method: "put", path: "/products/{id}", want: { operationId: "replaceProduct", success: "200", errors: ["400", "401", "403", "404", "406", "413", "415", "500"] } },
    { method: "patch", path: "/products/{id}", want: { operationId: "updateProduct", success: "200", errors: ["400", "401", "403", "404", "406", "413", "415", "500"] } },
    { method: "delete", path: "/products/{id}", want: { operationId: "deleteProduct", success: "204", errors: ["400", "401", "403", "404", "406", "500"] } },
  ];
  it.each(operations)("$method $path answers every status it can give", ({ method, path, want }) => {
    const operation = expand(baseDeclaration()).paths[path][method];
    expect(operation.operationId).toBe(want.operationId);
    expect(Object.keys(operation.responses)).toEqual([want.success, ...want.errors]);
    expect(operation.tags).toEqual(["products"]);
  });

  it("declares WWW-Authenticate on 401 and a Location on 201", () => {
    const post = expand(baseDeclaration()).paths["/products"].post;
    expect(post.responses["401"]).toMatchObject({ headers: { "WWW-Authenticate": { schema: { type: "string" } } }, content: { "application/json": { schema: { $ref: "#/components/schemas/AuthError" } } } });
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
    expect(schemes.OAuth2PasswordBearer).toEqual({ type: "oauth2", flows: { password: { tokenUrl: "/token", scopes: {} } }, "x-codegen-form": "permissive", "x-codegen-guard": "password" });
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
    (value.resources as any).products.fields = { secret: { type: "string", writeOnly: true, required: true }, sold: { type: "integer", readOnly: true, required: true } };
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

  it("gives a document servers [{url: /}] when none are declared", () => {
    expect(expand(baseDeclaration()).servers).toEqual([{ url: "/" }]);
  });
});

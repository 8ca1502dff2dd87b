import { describe, expect, it } from "vitest";
import { checkDeclaration } from "../src/run.js";
import { baseDeclaration, declare, validDeclaration } from "./support/declare.js";

describe("validateDeclaration", () => {
  it("accepts the base declaration and fills in every default", () => {
    const declaration = validDeclaration(baseDeclaration());
    const [products] = declaration.resources;
    expect(products).toMatchObject({
      name: "products",
      singular: "product",
      typeName: "Product",
      id: "integer",
      operations: ["list", "get", "create", "replace", "update", "delete"],
      access: { list: { kind: "public" }, create: { kind: "scopes", scopes: ["products:write"] } },
    });
    expect(declaration.guards[0]).toMatchObject({ kind: "password", name: "OAuth2PasswordBearer", form: "permissive", autoError: true });
  });

  it("expands field shorthands", () => {
    const value = baseDeclaration();
    (value.resources as any).products.fields = { tags: "string[]", count: "integer" };
    const [products] = validDeclaration(value).resources;
    expect(products!.fields).toMatchObject([
      { name: "tags", type: "array", items: { type: "string" } },
      { name: "count", type: "integer", required: false },
    ]);
  });

  it("resolves access: the most specific key wins; default authenticated with auth", () => {
    const value = baseDeclaration();
    (value.resources as any).products.access = { all: "optional", write: "authenticated", delete: ["products:write"] };
    const { access } = validDeclaration(value).resources[0]!;
    expect(access).toEqual({
      list: { kind: "optional" },
      get: { kind: "optional" },
      create: { kind: "authenticated" },
      replace: { kind: "authenticated" },
      update: { kind: "authenticated" },
      delete: { kind: "scopes", scopes: ["products:write"] },
    });
    delete (value.resources as any).products.access;
    expect(validDeclaration(value).resources[0]!.access.get).toEqual({ kind: "authenticated" });
  });

  // given: YAML text; want: the codes and line:column of every diagnostic, in order.
  const rows: { name: string; given: string; want: [string, string][] }[] = [
    {
      name: "three typos give three errors in one run",
      given: "codegen: 1\ninfo: { title: A, version: '1' }\nresources:\n  items:\n    feilds: { a: string }\n    acess: {}\n    singlar: item\n",
      want: [["decl/unknown-key", "5:5"], ["decl/unknown-key", "6:5"], ["decl/unknown-key", "7:5"]],
    },
    {
      name: "an unquoted version",
      given: "codegen: 1\ninfo: { title: A, version: 1.4 }\nresources: { items: { fields: { a: string } } }\n",
      want: [["decl/wrong-type", "2:28"]],
    },
    {
      name: "a singular collection name",
      given: "codegen: 1\ninfo: { title: A, version: '1' }\nresources:\n  item: { fields: { a: string } }\n",
      want: [["decl/not-plural", "4:3"]],
    },
    {
      name: "a reserved type name",
      given: "codegen: 1\ninfo: { title: A, version: '1' }\nresources:\n  errors: { fields: { a: string } }\n",
      want: [["decl/reserved-type-name", "4:3"]],
    },
    {
      name: "a ref with the wrong type",
      given:
        "codegen: 1\ninfo: { title: A, version: '1' }\nresources:\n  users: { id: uuid, fields: { a: string } }\n  posts:\n    fields:\n      userId: { type: integer, ref: users }\n",
      want: [["decl/ref-type-mismatch", "7:37"]],
    },
    {
      name: "access without auth",
      given: "codegen: 1\ninfo: { title: A, version: '1' }\nresources:\n  items:\n    fields: { a: string }\n    access: { read: public }\n",
      want: [["decl/access-without-auth", "6:5"]],
    },
    {
      name: "scopes no single guard declares together",
      given:
        "codegen: 1\ninfo: { title: A, version: '1' }\nauth:\n  - { guard: password, tokenUrl: /token, scopes: { a: A } }\n  - { guard: authorizationCode, authorizationUrl: 'https://x.test/a', tokenUrl: 'https://x.test/t', scopes: { b: B } }\nresources:\n  items:\n    fields: { f: string }\n    access: { read: [a, b] }\n",
      want: [["decl/scopes-split-across-guards", "9:21"]],
    },
  ];
  it.each(rows)("reports $name", ({ given, want }) => {
    const { value, diagnostics } = checkDeclaration("api.yaml", given);
    expect(value).toBeUndefined();
    expect(diagnostics.map((d) => [d.code, `${d.location?.line}:${d.location?.column}`])).toEqual(want);
  });

  it("suggests the nearest known key", () => {
    const { diagnostics } = declare({ ...baseDeclaration(), resourses: {} });
    expect(diagnostics[0]!.message).toContain("did you mean `resources`?");
    expect(diagnostics).toHaveLength(1);
  });

  it("accepts names of TypeScript built-ins as resources", () => {
    const value = baseDeclaration();
    value.resources = { records: { fields: { a: "string" } }, promises: { fields: { a: "string" } } };
    delete value.auth;
    expect(validDeclaration(value).resources.map((r) => r.typeName)).toEqual(["Record", "Promise"]);
  });
});

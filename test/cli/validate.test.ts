import { describe, expect, it } from "vitest";
import { checkDeclaration } from "../../src/pipeline.js";
import { baseDeclaration, declare, validDeclaration } from "../support/declare.js";

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
      want: [
        ["decl/unknown-key", "5:5"],
        ["decl/unknown-key", "6:5"],
        ["decl/unknown-key", "7:5"],
      ],
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
  rows.push({
    name: "a link or an action taking the rel of a ref link, the referenced resource's declared singular",
    given:
      "codegen: 1\ninfo: { title: A, version: '1' }\nresources:\n  staff: { singular: staffer, fields: { a: string } }\n  shifts:\n    fields:\n      who: { type: integer, ref: staff }\n    links:\n      staffer: { method: GET }\n    actions:\n      staffer: {}\n",
    want: [
      ["decl/link-rel-reserved", "9:7"],
      ["decl/link-rel-reserved", "11:7"],
    ],
  });
  it.each(rows)("reports $name", ({ given, want }) => {
    const { value, diagnostics } = checkDeclaration("api.yaml", given);
    expect(value).toBeUndefined();
    expect(diagnostics.map((d) => [d.code, `${d.location?.line}:${d.location?.column}`])).toEqual(want);
  });

  it("says why a title with a line break is refused", () => {
    // `.` in the pattern stops at every line terminator, U+2028 included: the message must say so.
    for (const title of ["Shop\nAPI", "Shop\u2028API", " "]) {
      const { diagnostics } = declare({ ...baseDeclaration(), info: { title, version: "1" } });
      expect(diagnostics.map((d) => d.message)).toEqual(["`info.title` must be one non-blank line without white space at its start or end"]);
    }
  });

  it("takes a link's href as a path of this host only", () => {
    const withHref = (href: string) => {
      const value = baseDeclaration();
      (value.resources as any).products.links = { all: { method: "GET", href } };
      return declare(value).diagnostics.map((d) => d.message);
    };
    expect(withHref("/products")).toEqual([]);
    for (const href of ["//evil.example/x", "products", "https://evil.example/x"]) {
      expect(withHref(href), href).toEqual(["`resources.products.links.all.href` must be a path starting with a single `/`"]);
    }
  });

  it("suggests the nearest known key", () => {
    const { diagnostics } = declare({ ...baseDeclaration(), resourses: {} });
    expect(diagnostics[0]!.message).toContain("did you mean `resources`?");
    expect(diagnostics).toHaveLength(1);
  });

  it("takes a declared singular that differs from the name as given; judges only derived singulars", () => {
    const value = baseDeclaration();
    value.resources = {
      articles0: { singular: "article0", fields: { a: "string" } },
      "v2-items": { fields: { a: "string" } },
      staff: { singular: "staffer", fields: { a: "string" } },
    };
    delete value.auth;
    expect(validDeclaration(value).resources.map((r) => [r.name, r.typeName])).toEqual([
      ["articles0", "Article0"],
      ["v2-items", "V2Item"],
      ["staff", "Staffer"],
    ]);
    value.resources = { articles0: { fields: { a: "string" } } };
    expect(declare(value).diagnostics.map((d) => d.code)).toEqual(["decl/not-plural"]);
  });

  it("reads operations in map form: options per operation, defaults for `{}`, canonical order", () => {
    const value = baseDeclaration();
    (value.resources as any).products.operations = {
      update: {},
      list: { summary: "Browse", page: { size: 150 }, sort: ["name"], query: { q: "string" } },
      create: { errors: { 422: "Too many", 409: "Taken" } },
    };
    const [products] = validDeclaration(value).resources;
    expect(products!.operations).toEqual(["list", "create", "update"]);
    expect(products!.options.list).toMatchObject({ summary: "Browse", page: { size: 150, max: 150 }, sort: ["name"], query: [{ name: "q", type: "string" }] });
    expect(products!.options.create!.errors).toEqual([
      { status: "409", description: "Taken" },
      { status: "422", description: "Too many" },
    ]);
    expect(products!.options.update).toEqual({ errors: [], query: [], extensions: {} });
    (value.resources as any).products.operations = { list: { page: {} } };
    expect(validDeclaration(value).resources[0]!.options.list!.page).toEqual({ size: 20, max: 100 });
  });

  it("reads actions: POST by default, the resource's write access unless their own", () => {
    const value = baseDeclaration();
    (value.resources as any).products.status = { values: ["draft", "live"], transitions: { draft: ["live"] } };
    (value.resources as any).products.actions = {
      publish: { when: ["draft"], to: "live" },
      peek: { method: "PUT", access: "public", body: { why: "string" } },
    };
    const [products] = validDeclaration(value).resources;
    expect(products!.actions).toEqual([
      { name: "publish", method: "POST", when: ["draft"], to: "live", access: { kind: "scopes", scopes: ["products:write"] }, errors: [], extensions: {} },
      { name: "peek", method: "PUT", body: [expect.objectContaining({ name: "why", type: "string" })], access: { kind: "public" }, errors: [], extensions: {} },
    ]);
  });

  it("accepts names of TypeScript built-ins as resources", () => {
    const value = baseDeclaration();
    value.resources = { records: { fields: { a: "string" } }, promises: { fields: { a: "string" } } };
    delete value.auth;
    expect(validDeclaration(value).resources.map((r) => r.typeName)).toEqual(["Record", "Promise"]);
  });
});

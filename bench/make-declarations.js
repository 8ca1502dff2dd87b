#!/usr/bin/env node
// Writes the benchmark inputs: for each size, a codegen declaration (`api-N.yaml`) and the
// equivalent TypeSpec program (`tsp-N/main.tsp` with its `tspconfig.yaml`, emitting OpenAPI 3.1).
// Each resource has six fields of mixed types, a filter, a status machine, links and scoped
// access; the API has two guards (password with a token endpoint, and authorization code).
// Usage: node bench/make-declarations.js [OUT_DIR] [SIZE...]   (default bench/.work, 10 100 1000)
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

/** The collection name of resource `i` (1-based): a lower-case plural noun, as the format asks. */
export const collectionOf = (i) => `r${i}-orders`;
/** Its type name, as codegen derives it (`r1-orders` -> `R1Order`). */
const typeOf = (i) => `R${i}Order`;

/** The codegen declaration of `size` resources. */
export function declarationText(size) {
  const lines = [
    "codegen: 1",
    "info:",
    `  title: Bench API ${size}`,
    '  version: "1.0.0"',
    "auth:",
    "  - guard: password",
    "    tokenUrl: /token",
    "    scopes:",
    "      orders:read: Read orders",
    "      orders:write: Change orders",
    "  - guard: authorizationCode",
    "    authorizationUrl: https://login.example.com/authorize",
    "    tokenUrl: https://login.example.com/token",
    "    scopes:",
    "      orders:read: Read orders",
    "      orders:write: Change orders",
    "resources:",
  ];
  for (let i = 1; i <= size; i++) {
    lines.push(
      `  ${collectionOf(i)}:`,
      "    fields:",
      "      name: { type: string, required: true, minLength: 1, maxLength: 100 }",
      "      quantity: { type: integer, minimum: 0, required: true }",
      "      price: { type: number, minimum: 0, nullable: true }",
      "      active: { type: boolean, default: true, filter: true }",
      "      tags: string[]",
      "      email: { type: string, format: email }",
      "    status:",
      "      values: [draft, open, closed]",
      "      initial: draft",
      "      transitions:",
      "        draft: [open, closed]",
      "        open: [closed]",
      "    links:",
      "      edit: { method: PATCH, when: [draft, open] }",
      "      cancel: { method: DELETE, when: [draft] }",
      "    access:",
      "      read: [orders:read]",
      "      write: [orders:write]",
    );
  }
  return lines.join("\n") + "\n";
}

/** The same API as a TypeSpec program (@typespec/http, @typespec/rest, @typespec/openapi3). */
export function typespecText(size) {
  const out = [
    'import "@typespec/http";',
    'import "@typespec/rest";',
    'import "@typespec/openapi";',
    'import "@typespec/openapi3";',
    "using Http;",
    "using Rest;",
    "using OpenAPI;",
    "",
    `@service(#{ title: "Bench API ${size}" })`,
    '@info(#{ version: "1.0.0" })',
    "namespace Bench;",
    "",
    'alias Scopes = ["orders:read", "orders:write"];',
    'alias PasswordGuard = OAuth2Auth<[{ type: OAuth2FlowType.password; tokenUrl: "/token"; scopes: Scopes }]>;',
    'alias CodeGuard = OAuth2Auth<[{ type: OAuth2FlowType.authorizationCode; authorizationUrl: "https://login.example.com/authorize"; tokenUrl: "https://login.example.com/token"; scopes: Scopes }]>;',
    'alias ReadGuards = OAuth2Auth<[{ type: OAuth2FlowType.password; tokenUrl: "/token"; scopes: Scopes }], ["orders:read"]> | OAuth2Auth<[{ type: OAuth2FlowType.authorizationCode; authorizationUrl: "https://login.example.com/authorize"; tokenUrl: "https://login.example.com/token"; scopes: Scopes }], ["orders:read"]>;',
    'alias WriteGuards = OAuth2Auth<[{ type: OAuth2FlowType.password; tokenUrl: "/token"; scopes: Scopes }], ["orders:write"]> | OAuth2Auth<[{ type: OAuth2FlowType.authorizationCode; authorizationUrl: "https://login.example.com/authorize"; tokenUrl: "https://login.example.com/token"; scopes: Scopes }], ["orders:write"]>;',
    "",
    "@minValue(0) scalar Price extends float64;",
    "model Link { rel: string; method: string; href: string; }",
    "@error model Error { error: string; detail?: Record<string>; }",
    "@error model AuthError { detail: string; }",
    "model BadRequest { @statusCode _: 400; @body body: Error; }",
    'model Unauthorized { @statusCode _: 401; @header("WWW-Authenticate") challenge: string; @body body: AuthError; }',
    "model Forbidden { @statusCode _: 403; @body body: AuthError; }",
    "model NotFoundError { @statusCode _: 404; @body body: Error; }",
    "model NotAcceptable { @statusCode _: 406; @body body: Error; }",
    "model ConflictError { @statusCode _: 409; @body body: Error; }",
    "model TooLarge { @statusCode _: 413; @body body: Error; }",
    "model Unsupported { @statusCode _: 415; @body body: Error; }",
    "model ServerError { @statusCode _: 500; @body body: Error; }",
    "alias Failures = BadRequest | Unauthorized | Forbidden | NotAcceptable | ServerError;",
    "alias BodyFailures = Failures | TooLarge | Unsupported;",
    "",
    'model TokenRequest { grant_type?: "password"; username: string; password: string; scope?: string; }',
    "model TokenResponse { access_token: string; token_type: string; expires_in?: int32; scope?: string; }",
    '@route("/token") @post op issueToken(@header contentType: "application/x-www-form-urlencoded", @body body: TokenRequest): TokenResponse | BadRequest | ServerError;',
    "",
  ];
  for (let i = 1; i <= size; i++) {
    const T = typeOf(i);
    out.push(
      `enum ${T}Status { draft, open, closed }`,
      `model ${T} {`,
      "  @visibility(Lifecycle.Read) @minValue(1) id: safeint;",
      "  @minLength(1) @maxLength(100) name: string;",
      "  @minValue(0) quantity: safeint;",
      "  price?: Price | null;",
      "  active?: boolean = true;",
      "  tags?: string[];",
      '  @format("email") email?: string;',
      `  status?: ${T}Status;`,
      "  @visibility(Lifecycle.Read) links: Link[];",
      "}",
      `@route("/${collectionOf(i)}") @tag("${collectionOf(i)}")`,
      `namespace ${T}s {`,
      `  @get @useAuth(ReadGuards) op list${T}s(@query active?: boolean, @query status?: ${T}Status): ${T}[] | Failures;`,
      `  @get @useAuth(ReadGuards) op get${T}(@path @minValue(1) id: safeint): ${T} | NotFoundError | Failures;`,
      `  @post @useAuth(WriteGuards) op create${T}(@body body: ${T}): { @statusCode _: 201; @header location: string; @body body: ${T}; } | BodyFailures;`,
      `  @put @useAuth(WriteGuards) op replace${T}(@path @minValue(1) id: safeint, @body body: ${T}): ${T} | NotFoundError | ConflictError | BodyFailures;`,
      `  @patch(#{ implicitOptionality: false }) @useAuth(WriteGuards) op update${T}(@path @minValue(1) id: safeint, @header contentType: "application/merge-patch+json", @body body: MergePatchUpdate<${T}>): ${T} | NotFoundError | ConflictError | BodyFailures;`,
      `  @delete @useAuth(WriteGuards) op delete${T}(@path @minValue(1) id: safeint): NoContentResponse | NotFoundError | Failures;`,
      "}",
      "",
    );
  }
  return out.join("\n");
}

const TSPCONFIG = `emit:
  - "@typespec/openapi3"
options:
  "@typespec/openapi3":
    openapi-versions: ["3.1.0"]
    emitter-output-dir: "{output-dir}"
`;

/** Write both inputs of every size into `dir`; returns their paths by size. */
export function writeInputs(dir, sizes) {
  mkdirSync(dir, { recursive: true });
  const written = {};
  for (const size of sizes) {
    const declaration = path.join(dir, `api-${size}.yaml`);
    writeFileSync(declaration, declarationText(size));
    const tspDir = path.join(dir, `tsp-${size}`);
    mkdirSync(tspDir, { recursive: true });
    writeFileSync(path.join(tspDir, "main.tsp"), typespecText(size));
    writeFileSync(path.join(tspDir, "tspconfig.yaml"), TSPCONFIG);
    written[size] = { declaration, typespec: tspDir };
  }
  return written;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dirArg, ...sizeArgs] = process.argv.slice(2);
  const dir = path.resolve(dirArg ?? path.join(here, ".work"));
  const sizes = sizeArgs.length > 0 ? sizeArgs.map(Number) : [10, 100, 1000];
  const written = writeInputs(dir, sizes);
  for (const size of sizes) console.log(`${size}: ${written[size].declaration} ${written[size].typespec}/main.tsp`);
}

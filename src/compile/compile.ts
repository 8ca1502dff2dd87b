/**
 * The compile stage's entry: input text (a codegen declaration or an OpenAPI document) to a
 * verified OpenAPI 3.1 document, and that document to the ApiModel the emitters read
 * (src/model/api-model.ts). Pure but for the files an OpenAPI document's `$ref`s name; diagnostics
 * are located in the text the user wrote.
 */
import path from "node:path";
import type { OpenAPIV3_1 } from "openapi-types";
import { type LoadedDocument, type LoadResult, loadDocument, placeFinder } from "./declaration/load.js";
import type { Declaration } from "./declaration/model.js";
import { validateDeclaration } from "./declaration/validate.js";
import { type Diagnostic, type SourceLocation, asErrors, diagnostic, sortDiagnostics, warning } from "../diagnostics/index.js";
import { expandDeclaration } from "./expand/expand.js";
import { UnsupportedConstructs, buildApiModel } from "./api/build.js";
import { inlineReferences } from "./api/foreign.js";
import type { TableHistory } from "./tables.js";
import type { ApiModel } from "../model/api-model.js";
import type { InputOptions, PatternOptions } from "../options.js";
import { fromOpenApi30 } from "./openapi/versions.js";
import { INLINE_DEPTH_LIMIT, REF_CHAIN_PLACE, placeDeeperThan, referencePlace } from "./openapi/depth.js";
import { fragmentKeys } from "./pointer.js";

/** What a stage gives: a value when it succeeded, and every problem it found. */
export interface Outcome<T> {
  readonly value?: T;
  readonly diagnostics: readonly Diagnostic[];
}

/** Load and validate a declaration's text. Pure. */
export function checkDeclaration(file: string, text: string, alreadyLoaded?: LoadResult, options: PatternOptions = {}): Outcome<Declaration> {
  const nul = text.indexOf("\u0000");
  if (nul >= 0) return { diagnostics: [diagnostic("input/not-text", {}, placeFinder(file, text)([nul, nul + 1]))] };
  // A caller that has loaded the text already passes it on: parsing with positions is the costly part.
  const loaded = alreadyLoaded ?? loadDocument(file, text);
  if (!loaded.document) return { diagnostics: sortDiagnostics(loaded.diagnostics) };
  const validated = validateDeclaration(loaded.document, options);
  return {
    ...(validated.declaration ? { value: validated.declaration } : {}),
    diagnostics: sortDiagnostics(validated.diagnostics),
  };
}

/**
 * Declaration text to an OpenAPI 3.1 document: load, validate, expand, and, with `selfCheck`,
 * verify. The verifier (swagger-parser, ajv) is loaded only then, so commands that do not need it start fast.
 */
export async function openapiFromText(
  file: string,
  text: string,
  alreadyLoaded?: LoadResult,
  options: InputOptions = {},
): Promise<Outcome<OpenAPIV3_1.Document>> {
  const checked = checkDeclaration(file, text, alreadyLoaded, options);
  if (!checked.value) return { diagnostics: checked.diagnostics };
  const document = expandDeclaration(checked.value);
  // Why: verifying codegen's own expansion cost ~40% of a run and protects the user
  // from nothing a valid declaration can cause (a failure is codegen's bug, never the user's).
  // `codegen validate` and the tests (every fixture, every fuzzed declaration) still run it.
  if (options.selfCheck !== true) return { value: document, diagnostics: [] };
  const { verifyDocument } = await import("./verify/verify.js");
  const problems = await verifyDocument(document);
  return problems.length > 0 ? { diagnostics: problems } : { value: document, diagnostics: [] };
}

/** Whether an input's value is a codegen declaration rather than an OpenAPI document (which has `openapi`, or `swagger`, and no `codegen`). */
export const isDeclarationValue = (value: unknown): boolean =>
  !(typeof value === "object" && value !== null && ("openapi" in value || "swagger" in value) && !("codegen" in value));

/**
 * Any input to the OpenAPI 3.1 document the renderer reads: a declaration is expanded; an
 * OpenAPI 3.0 or 3.1 document (recognised by its `openapi` key) is bundled (`$ref`s to other
 * files pulled in, through the gate of src/openapi/ref-files.ts), validated with swagger-parser
 * and ajv, and read as 3.1; a Swagger 2.0 one (its `swagger` key) is bundled, converted to 3.0
 * (src/openapi/swagger2.ts) and read so. Schema mistakes that do not stop rendering are read
 * leniently (src/openapi/lenient.ts): the value comes with warnings, errors with `strict`.
 */
export async function documentFromText(
  file: string,
  text: string,
  cwd: string,
  options: InputOptions = {},
): Promise<Outcome<OpenAPIV3_1.Document> & { readonly fromDeclaration?: boolean }> {
  const loaded = text.includes("\u0000") ? undefined : loadDocument(file, text);
  const value = loaded?.document?.value;
  const isOpenApi = !isDeclarationValue(value);
  // `fromDeclaration`: the input was a declaration, whose text alone decides the files (src/fresh.ts).
  if (!loaded?.document || !isOpenApi) return { ...(await openapiFromText(file, text, loaded, options)), fromDeclaration: true };
  const swagger = "swagger" in (value as object) && !("openapi" in (value as object));
  const swagger2 = swagger ? await import("./openapi/swagger2.js") : undefined;
  // A 2.0 document's diagnostics name places of its 3.0 conversion: they are shown where those came from.
  const at = (pointer: string) => locatePointer(loaded.document!, swagger2 ? swagger2.originalPointer(pointer, value) : pointer);
  // The place a validator's message names by its JSON pointer, else the document.
  const named = (message: string) => at(/#\/\S*/.exec(message)?.[0] ?? "#");
  const version = String(swagger ? (value as { swagger: unknown }).swagger : (value as { openapi: unknown }).openapi);
  if (swagger ? version !== "2.0" : !/^3\.[01]\.\d+$/.test(version)) {
    return { diagnostics: [diagnostic("openapi/version", { version }, locatePointer(loaded.document, swagger ? "#/swagger" : "#/openapi"))] };
  }

  const { default: SwaggerParser } = await import("@apidevtools/swagger-parser");
  const { RefFiles, needsBundling } = await import("./openapi/ref-files.js");
  const input = path.resolve(cwd, file);
  const refs = new RefFiles(input, loaded.document, path.resolve(cwd, options.refRoot ?? path.dirname(input)), cwd);
  let bundled: Record<string, unknown>;
  const bundling = needsBundling(value);
  try {
    // A copy either way: bundling changes the value, and swagger-parser wants objects with a prototype.
    bundled = bundling
      ? ((await SwaggerParser.bundle(input, structuredClone(value) as never, refs.options())) as unknown as Record<string, unknown>)
      : (structuredClone(value) as Record<string, unknown>);
  } catch (error) {
    if (refs.diagnostics.length > 0) return { diagnostics: sortDiagnostics(refs.diagnostics) };
    // Why: swagger-parser follows each reference in turn, recursing, and a chain of a few thousand
    // references (to references, or through properties when the document is bundled) overflows its
    // stack. That is said as what it is, at a place of the chain, not as the stack's message.
    const messages = [error, ...((error as { errors?: unknown[] }).errors ?? [])].map((e) => String((e as { message?: unknown })?.message ?? e));
    if (error instanceof RangeError || messages.some((message) => /Maximum call stack size exceeded/.test(message))) {
      return { diagnostics: [diagnostic("openapi/ref-chain", { levels: REF_CHAIN_PLACE }, loaded.document.locate(referencePlace(value)))] };
    }
    // Every problem of every file (continueOnError), each at the place it names.
    const errors = (error as { errors?: unknown }).errors;
    const found =
      Array.isArray(errors) && errors.length > 0 ? (errors as { message: string; source?: string; path?: string[] | null }[]) : [error as { message: string }];
    return {
      diagnostics: sortDiagnostics(
        found.map((e) => {
          const located =
            "source" in e && typeof e.source === "string" ? refs.locate(e.source, ("path" in e && Array.isArray(e.path) ? e.path : []).map(String)) : undefined;
          return diagnostic("openapi/invalid", { message: firstLineOf(e.message) }, located ?? named(e.message));
        }),
      ),
    };
  }
  // Why: a file pulled in where it is referred to nests inside the referring one; a chain of files
  // nests as deep as it is long, and every later walk recurses once per level.
  const deep = bundling ? placeDeeperThan(bundled, INLINE_DEPTH_LIMIT) : undefined;
  if (deep !== undefined) return { diagnostics: [diagnostic("openapi/too-deep", { limit: INLINE_DEPTH_LIMIT }, loaded.document.locate(deep))] };
  if (swagger2) {
    try {
      bundled = swagger2.fromSwagger2(bundled);
    } catch (error) {
      return {
        diagnostics: [
          diagnostic("openapi/invalid", { message: `cannot convert Swagger 2.0 to OpenAPI 3.0: ${firstLineOf((error as Error).message)}` }, at("#")),
        ],
      };
    }
  }
  const { readLeniently } = await import("./openapi/lenient.js");
  const lenient = readLeniently(bundled, swagger || version.startsWith("3.0") ? "3.0" : "3.1", at);
  bundled = lenient.document;
  const { warnings } = lenient;
  // Why: swagger-parser's validate dereferences every ref and walks the result, which
  // for a few kilobytes of refs that use each other twice is 2^30 objects. The refs are inlined
  // here instead, each target once (shared by its uses), the size of the result bounded, refs to
  // named schemas kept; the result is checked against OpenAPI's schema in place, unfollowed.
  const inlined = inlineReferences(bundled);
  const blocking = inlined.problems.filter((p) => p.kind === "missing" || p.kind === "too-large" || p.kind === "too-deep");
  if (blocking.length > 0) {
    return {
      diagnostics: sortDiagnostics(
        blocking.map((p) =>
          p.kind === "too-large"
            ? diagnostic("openapi/ref-expansion", { limit: p.limit ?? 0 }, at(p.pointer))
            : p.kind === "too-deep"
              ? diagnostic("openapi/too-deep", { limit: p.limit ?? 0 }, at(p.pointer))
              : diagnostic("openapi/invalid", { message: p.reason }, at(p.pointer)),
        ),
      ),
    };
  }
  try {
    // Nothing is dereferenced, so nothing is changed: no copy is needed.
    await SwaggerParser.validate(inlined.document as never, { resolve: { external: false }, dereference: { excludedPathMatcher: () => true } });
  } catch (error) {
    // Why the second line too: swagger-parser's first line alone ("Swagger schema validation failed.") says not what failed.
    const lines = (error as Error).message
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "");
    return { diagnostics: [diagnostic("openapi/invalid", { message: lines.slice(0, 2).join(" ") }, named((error as Error).message))] };
  }
  const document = (swagger || version.startsWith("3.0") ? fromOpenApi30(bundled) : bundled) as unknown as OpenAPIV3_1.Document;
  const { compileSchemas } = await import("./verify/verify.js");
  const problems: Diagnostic[] = compileSchemas(document, "input").map((d) => ({ ...d, location: named(d.message) }));
  if (options.allowUnsafePatterns !== true) {
    const { unsafePatterns } = await import("./verify/patterns.js");
    // Why a warning (without --strict): one pattern must not refuse a whole document written by
    // others. The validator leaves it out (modelOfDocument, schemaNode), never runs it on V8's
    // backtracking engine; the document keeps it, for clients and the handler.
    unsafePatterns(document, (pointer, pattern, reason) => {
      if (options.strict === true) problems.push(diagnostic("schema/unsafe-pattern", { pattern, reason }, at(pointer)));
      else warnings.push(warning("openapi/rendered-otherwise", uncheckedPattern(pointer, pattern, reason), at(pointer)));
    });
  }
  if (problems.length > 0) return { diagnostics: sortDiagnostics([...problems, ...warnings]) };
  if (options.strict === true && warnings.length > 0) return { diagnostics: sortDiagnostics(asErrors(warnings)) };
  return { value: document, diagnostics: sortDiagnostics(warnings) };
}

/** What the server does with a pattern it cannot match in linear time (openapi/rendered-otherwise's words). */
function uncheckedPattern(pointer: string, pattern: string, reason: string): { reason: string; instead: string } {
  const names = /\/patternProperties\/[^/]*$/.test(pointer);
  return {
    reason: `the pattern ${JSON.stringify(pattern)} has ${reason}, which the linear-time matcher does not take, and V8's backtracking engine could be made to run for minutes by one request`,
    instead: names
      ? "checks neither the properties whose names it matches nor which properties are additional: the handler must; the served document keeps the pattern (--allow-unsafe-patterns checks it on V8's engine)"
      : "does not check this pattern (the handler must); the schema's other keywords are checked and the served document keeps the pattern (--allow-unsafe-patterns checks it on V8's engine)",
  };
}

/** Where a JSON pointer (`#/paths/~1a/get`) stands in a loaded document. */
function locatePointer(document: LoadedDocument, pointer: string) {
  return document.locate(fragmentKeys(pointer));
}

const firstLineOf = (text: string) => (text.split("\n").find((line) => line.trim() !== "") ?? text).trim();

/**
 * The path of the document's first server URL, where the generated server serves every route
 * (http-behaviour "Beyond the API's own routes"): `https://api.example.com/v1` gives `/v1`;
 * variables take their defaults; no server, or one without a path, gives `""`.
 */
export function basePathOf(document: OpenAPIV3_1.Document): string {
  const server = document.servers?.[0];
  if (server === undefined) return "";
  const variables = server.variables ?? {};
  const url = server.url.replace(/\{([^}]*)\}/g, (whole, name: string) => (Object.hasOwn(variables, name) ? String(variables[name]!.default) : whole));
  try {
    // Why: a relative server URL (`/v1`) is relative to the document's own address: only its path counts.
    return new URL(url, "http://localhost").pathname.replace(/\/+$/, "");
  } catch {
    return "";
  }
}

/**
 * The ApiModel of a verified document, or a diagnostic at the place of every construct the
 * renderer cannot turn into code (all of them, not only the first). `fromOthers`: the document
 * is written by others (not expanded from a declaration); what of it cannot be rendered as
 * written is rendered another way, with a warning at its place (docs/openapi.md).
 */
export function modelOfDocument(
  file: string,
  text: string,
  document: OpenAPIV3_1.Document,
  inputPath: string,
  tableHistory: TableHistory = {},
  fromOthers = false,
  options: PatternOptions = {},
): Outcome<ApiModel> {
  try {
    const model = buildApiModel(document, { inputPath, tableHistory, fromOthers, allowUnsafePatterns: options.allowUnsafePatterns === true });
    if (model.unmappedErrors === undefined && model.handled === undefined) return { value: model, diagnostics: [] };
    const source = loadDocument(file, text).document;
    const at = (pointer: string) => (source ? locatePointer(source, pointer) : { file, line: 1, column: 1, length: 1 });
    // Why a warning: the server still answers those refusals, only not in the declared shape.
    const diagnostics = (model.unmappedErrors ?? []).map(({ pointer, responses, more }) =>
      warning("openapi/error-shape-unmapped", { uses: more > 0 ? [...responses, `likewise for ${more} more`] : responses }, at(pointer)),
    );
    for (const { pointer, reason, instead } of model.handled ?? []) diagnostics.push(warning("openapi/rendered-otherwise", { reason, instead }, at(pointer)));
    return { value: model, diagnostics: sortDiagnostics(diagnostics) };
  } catch (error) {
    if (!(error instanceof UnsupportedConstructs)) throw error;
    const source = loadDocument(file, text).document;
    return {
      diagnostics: error.problems.map((problem) => {
        // Why: a declaration's user wrote `resources/loans/actions/renew`, not the expanded path item.
        const fromDeclaration = source !== undefined && problem.declarationPointer !== undefined && isDeclarationValue(source.value);
        const pointer = fromDeclaration ? problem.declarationPointer! : problem.pointer;
        const location = source ? locatePointer(source, pointer) : { file, line: 1, column: 1, length: 1 };
        return diagnostic("openapi/unsupported", { pointer: problem.pointer, reason: problem.reason }, location);
      }),
    };
  }
}

/** Where a path of the declaration `text` stands, read only when a diagnostic needs it; nothing for an OpenAPI input. */
export function declarationLocator(file: string, text: string): (path: readonly (string | number)[]) => SourceLocation | undefined {
  let source: LoadedDocument | undefined | null = null;
  return (at) => {
    if (source === null) source = loadDocument(file, text).document;
    return source !== undefined && isDeclarationValue(source.value) ? source.locate([...at]) : undefined;
  };
}

import path from "node:path";
import type { OpenAPIV3_1 } from "openapi-types";
import { type LoadedDocument, type LoadResult, loadDocument } from "./declaration/load.js";
import type { Declaration } from "./declaration/model.js";
import { validateDeclaration } from "./declaration/validate.js";
import { type Diagnostic, type SourceLocation, asErrors, diagnostic, formatDiagnostics, sortDiagnostics, warning } from "./diagnostics/index.js";
import { expandDeclaration } from "./expand/expand.js";
import { declarationKey, fingerprintOfCode, inputPathOf, isIntact, isUnsafeFolder, loadTemplateSources } from "./fresh.js";
import type { Host } from "./host.js";
import { UnsupportedConstructs, buildApiView } from "./model/build.js";
import { inlineReferences } from "./model/foreign.js";
import type { ApiView } from "./model/view.js";
import { type MigrationRequest, type PostgresFiles, type PreviousMigrations, SNAPSHOT, parseSnapshot, postgresFiles } from "./postgres/generate.js";
import { refusalDiagnostic, uncapturedDiagnostics } from "./postgres/evolution.js";
import { MIGRATION_FILE } from "./postgres/migrations.js";
import type { FolderOptions, GenerateOptions, InputOptions, OpenApiVersion } from "./options.js";
import type { PatternOptions } from "./verify/patterns.js";
import { fromOpenApi30, toOpenApi30 } from "./openapi/versions.js";
import { servedDocument } from "./emit/served.js";
import type { GeneratedFile } from "./render/render.js";
import { applyPlan, outputFolder, readCurrent, recover } from "./write/apply.js";
import { notAFolder } from "./write/target.js";
import { recordedMigrations } from "./postgres/recorded.js";
import { type CurrentTree, type DataFile, MANIFEST, hasChanges, hashOf, manifestText, planWrite, shapeOfJson } from "./write/plan.js";
import { jsonToYaml, yamlOfDocument } from "./write/yaml.js";

export type { FolderOptions, GenerateOptions, InputOptions, OpenApiVersion };

/** What a stage gives: a value when it succeeded, and every problem it found. */
export interface Outcome<T> {
  readonly value?: T;
  readonly diagnostics: readonly Diagnostic[];
}

/** Read an input file, turning the ways it can fail into diagnostics. */
export async function readInput(host: Host, file: string): Promise<Outcome<string>> {
  try {
    return { value: await host.readFile(file), diagnostics: [] };
  } catch (error) {
    // Reported at 1:1 of the file, so every diagnostic reads FILE:LINE:COLUMN.
    const at = { file, line: 1, column: 1, length: 1 };
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { diagnostics: [diagnostic("input/not-found", { path: file }, at)] };
    if (code === "EISDIR") return { diagnostics: [diagnostic("input/is-directory", { path: file }, at)] };
    if (code === "ENOTTEXT") return { diagnostics: [diagnostic("input/not-text", {}, at)] };
    return { diagnostics: [diagnostic("input/unreadable", { path: file, reason: (error as Error).message }, at)] };
  }
}

/** Load and validate a declaration's text. Pure. */
export function checkDeclaration(file: string, text: string, alreadyLoaded?: LoadResult, options: PatternOptions = {}): Outcome<Declaration> {
  if (text.includes("\u0000")) return { diagnostics: [diagnostic("input/not-text", {}, { file, line: 1, column: 1, length: 1 })] };
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
const isDeclarationValue = (value: unknown): boolean =>
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
  const { originalPointer } = swagger ? await import("./openapi/swagger2.js") : { originalPointer: undefined };
  // A 2.0 document's diagnostics name places of its 3.0 conversion: they are shown where those came from.
  const at = (pointer: string) => locatePointer(loaded.document!, originalPointer ? originalPointer(pointer, value) : pointer);
  const version = String(swagger ? (value as { swagger: unknown }).swagger : (value as { openapi: unknown }).openapi);
  if (swagger ? version !== "2.0" : !/^3\.[01]\.\d+$/.test(version)) {
    return { diagnostics: [diagnostic("openapi/version", { version }, locatePointer(loaded.document, swagger ? "#/swagger" : "#/openapi"))] };
  }

  const { default: SwaggerParser } = await import("@apidevtools/swagger-parser");
  const { RefFiles, needsBundling } = await import("./openapi/ref-files.js");
  const input = path.resolve(cwd, file);
  const refs = new RefFiles(input, loaded.document, path.resolve(cwd, options.refRoot ?? path.dirname(input)), cwd);
  let bundled: Record<string, unknown>;
  try {
    // A copy either way: bundling changes the value, and swagger-parser wants objects with a prototype.
    bundled = needsBundling(value)
      ? ((await SwaggerParser.bundle(input, structuredClone(value) as never, refs.options())) as unknown as Record<string, unknown>)
      : (structuredClone(value) as Record<string, unknown>);
  } catch (error) {
    if (refs.diagnostics.length > 0) return { diagnostics: sortDiagnostics(refs.diagnostics) };
    // Every problem of every file (continueOnError), each at the place it names.
    const errors = (error as { errors?: unknown }).errors;
    const found =
      Array.isArray(errors) && errors.length > 0 ? (errors as { message: string; source?: string; path?: string[] | null }[]) : [error as { message: string }];
    return {
      diagnostics: sortDiagnostics(
        found.map((e) => {
          const located =
            "source" in e && typeof e.source === "string" ? refs.locate(e.source, ("path" in e && Array.isArray(e.path) ? e.path : []).map(String)) : undefined;
          const pointer = /#\/[^\s]*/.exec(e.message)?.[0];
          return diagnostic("openapi/invalid", { message: firstLineOf(e.message) }, located ?? (pointer ? at(pointer) : at("#")));
        }),
      ),
    };
  }
  if (swagger) {
    const { fromSwagger2 } = await import("./openapi/swagger2.js");
    try {
      bundled = fromSwagger2(bundled);
    } catch (error) {
      return {
        diagnostics: [
          diagnostic("openapi/invalid", { message: `cannot convert Swagger 2.0 to OpenAPI 3.0: ${firstLineOf((error as Error).message)}` }, at("#")),
        ],
      };
    }
  }
  const { readLeniently } = await import("./openapi/lenient.js");
  const lenient = readLeniently(bundled, swagger || version.startsWith("3.0") ? "3.0" : "3.1");
  bundled = lenient.document;
  const warnings = lenient.readings.map((r) => {
    const place = at(r.pointer);
    if (r.kind === "ref-siblings") return warning("openapi/ref-siblings-ignored", { keys: r.keys }, place);
    if (r.kind === "nullable-without-type") return warning("openapi/nullable-without-type", {}, place);
    if (r.kind === "nullable-in-3.1") return warning("openapi/nullable-not-3.1", {}, place);
    return warning("openapi/pattern-without-u", { pattern: r.pattern, meant: r.meant }, place);
  });
  // Why: swagger-parser's validate dereferences every ref and walks the result, which
  // for a few kilobytes of refs that use each other twice is 2^30 objects. The refs are inlined
  // here instead, each target once (shared by its uses), the size of the result bounded, refs to
  // named schemas kept; the result is checked against OpenAPI's schema in place, unfollowed.
  const inlined = inlineReferences(bundled);
  const blocking = inlined.problems.filter((p) => p.kind === "missing" || p.kind === "too-large");
  if (blocking.length > 0) {
    return {
      diagnostics: sortDiagnostics(
        blocking.map((p) =>
          p.kind === "too-large"
            ? diagnostic("openapi/ref-expansion", { limit: p.limit ?? 0 }, at(p.pointer))
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
    const message = lines.slice(0, 2).join(" ");
    const pointer = /#\/[^\s]*/.exec((error as Error).message)?.[0];
    return { diagnostics: [diagnostic("openapi/invalid", { message }, pointer ? at(pointer) : at("#"))] };
  }
  const document = (swagger || version.startsWith("3.0") ? fromOpenApi30(bundled) : bundled) as unknown as OpenAPIV3_1.Document;
  const { compileSchemas } = await import("./verify/verify.js");
  const problems: Diagnostic[] = compileSchemas(document, "input").map((d) => ({ ...d, location: at(/#\/\S*/.exec(d.message)?.[0] ?? "#") }));
  if (options.allowUnsafePatterns !== true) {
    const { unsafePatterns } = await import("./verify/patterns.js");
    for (const { pointer, pattern, reason } of unsafePatterns(document)) problems.push(diagnostic("schema/unsafe-pattern", { pattern, reason }, at(pointer)));
  }
  if (problems.length > 0) return { diagnostics: sortDiagnostics([...problems, ...warnings]) };
  if (options.strict === true && warnings.length > 0) return { diagnostics: sortDiagnostics(asErrors(warnings)) };
  return { value: document, diagnostics: sortDiagnostics(warnings) };
}

/** Where a JSON pointer (`#/paths/~1a/get`) stands in a loaded document. */
function locatePointer(document: LoadedDocument, pointer: string) {
  const parts = pointer
    .replace(/^#\/?/, "")
    .split("/")
    .filter((p) => p !== "");
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  };
  return document.locate(parts.map((p) => decode(p).replace(/~1/g, "/").replace(/~0/g, "~")));
}

const firstLineOf = (text: string) => (text.split("\n").find((line) => line.trim() !== "") ?? text).trim();

/** The document as text: YAML (no anchors, no folding) or JSON, always ending in a newline. */
export function serializeDocument(document: unknown, format: "yaml" | "json", version: OpenApiVersion = "3.1"): string {
  if (version === "3.0") document = toOpenApi30(document as Record<string, unknown>);
  if (format === "json") return JSON.stringify(document, null, 2) + "\n";
  return jsonToYaml(document);
}

/** Print diagnostics to stderr with excerpts of the files they point into. */
export function reportDiagnostics(host: Host, diagnostics: readonly Diagnostic[], sources: Record<string, string>): void {
  if (diagnostics.length === 0) return;
  host.stderr(formatDiagnostics(diagnostics, { sources: new Map(Object.entries(sources)), colour: host.colour }));
}

/** Read the templates once per process (src/fresh.ts). */
export { loadTemplateSources };

/**
 * Input text to every generated file (the OpenAPI document and the server code), without
 * touching the disk: load, validate, expand, verify, model, render, format.
 */
export async function generateFiles(host: Pick<Host, "cwd">, file: string, text: string, options: GenerateOptions): Promise<Outcome<GeneratedFile[]>> {
  const expanded = await documentFromText(file, text, host.cwd, options);
  if (!expanded.value) return { diagnostics: expanded.diagnostics };
  const files = await filesFromDocument(host, file, text, expanded.value, options, undefined, options.migration);
  return { ...files, diagnostics: [...expanded.diagnostics, ...files.diagnostics] };
}

/**
 * A verified document to every generated file: model, render, and with `--prettier` the
 * project's own formatter. `previous`: the migrations an earlier run left in the output folder
 * (none: the first migration creates every table).
 */
async function filesFromDocument(
  host: Pick<Host, "cwd">,
  file: string,
  text: string,
  document: OpenAPIV3_1.Document,
  options: GenerateOptions,
  previous?: PreviousMigrations,
  request?: MigrationRequest,
): Promise<Outcome<GeneratedFile[]> & { readonly warnings?: readonly string[]; readonly postgres?: PostgresFiles }> {
  // The document as written (3.0 converted once), kept with openapi.yaml: the manifest hashes its shape from it.
  const written = options.openapiVersion === "3.0" ? toOpenApi30(document as unknown as Record<string, unknown>) : document;
  // openapi.yaml, and whether the server's own writer makes it by construction (src/write/yaml.ts).
  const { text: openapi, servedAsIs } = yamlOfDocument(written);
  const modelled = viewOfDocument(file, text, document, inputPathOf(host.cwd, file, options.outDir));
  if (!modelled.value) return { diagnostics: modelled.diagnostics };
  const view = modelled.value;
  // Why compact JSON: the served text is read by programs; indented, it is half whitespace. The
  // manifest hashes openapi.yaml's shape from the same text.
  const json = JSON.stringify(written);
  const openapiFile: DataFile = { path: "openapi.yaml", contents: openapi, data: written, dataShape: shapeOfJson(json) };
  const served = servedDocument(basePathOf(document), written, json, openapi, servedAsIs);
  // The PostgreSQL store and its migrations, for codegen's own resources (docs/postgres.md).
  const postgres = view.hasResources ? postgresFiles(view, document, previous, request) : undefined;
  const filesView = { ...view, document: served, ...(postgres ? { postgres: postgres.view } : {}) };
  const warnings = postgres?.warnings ?? [];
  const data = postgres?.files ?? [];
  // Handlebars is loaded only by the commands that render (not `openapi`, not `validate`).
  const { renderFiles } = await import("./render/render.js");
  const files = [openapiFile, ...renderFiles(filesView, loadTemplateSources()), ...data];
  if (options.prettier !== true) return { value: files, diagnostics: [], warnings, ...(postgres ? { postgres } : {}) };
  // `--prettier`: the project's own prettier and configuration have the last word.
  const { ProjectPrettierMissing, formatWithProjectPrettier } = await import("./format/user-prettier.js");
  try {
    return {
      value: await formatWithProjectPrettier(files, path.resolve(host.cwd, options.outDir)),
      diagnostics: [],
      warnings,
      ...(postgres ? { postgres } : {}),
    };
  } catch (error) {
    if (!(error instanceof ProjectPrettierMissing)) throw error;
    return { diagnostics: [diagnostic("output/no-prettier", { dir: options.outDir })] };
  }
}

/** The migrations an earlier run left in a folder: the snapshot and every migration file its manifest lists. */
function previousMigrations(current: CurrentTree): PreviousMigrations {
  const text = (path: string) => {
    const found = current.look(path);
    return found.kind === "file" ? found.text : undefined;
  };
  // Why: only what an earlier run wrote counts as history (a folder without a manifest, such as a
  // copy of the output, has none): its migrations are those its manifest lists, and so its snapshot.
  const snapshot = current.manifest.files.has(SNAPSHOT) ? parseSnapshot(text(SNAPSHOT)) : undefined;
  const migrations = [...current.manifest.files.keys()]
    .filter((p) => MIGRATION_FILE.test(p))
    .flatMap((p) => {
      const contents = text(p);
      return contents === undefined ? [] : [{ path: p, contents }];
    });
  return { ...(snapshot ? { snapshot } : {}), migrations };
}

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
 * The view model of a verified document, or a diagnostic at the place of every construct the
 * renderer cannot turn into code (all of them, not only the first).
 */
export function viewOfDocument(file: string, text: string, document: OpenAPIV3_1.Document, inputPath: string): Outcome<ApiView> {
  try {
    return { value: buildApiView(document, { inputPath }), diagnostics: [] };
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

/** What a generation into a folder did, or (with `check`) would do. */
export interface FolderOutcome {
  readonly diagnostics: readonly Diagnostic[];
  readonly summary?: { readonly written: number; readonly unchanged: number; readonly removed: number };
  /** With `check`, when the folder is not current: the files and diffs to print. */
  readonly drift?: string;
  /** Destructive changes of the tables, written commented out in a migration and not applied. */
  readonly warnings?: readonly string[];
  /** With `migration`: the migration written (`migrations/0002_add_pets_color.sql`), absent when the tables did not change. */
  readonly migration?: string;
}

/**
 * Generate into a folder under the manifest's rules (src/write/plan.ts), swapping the new tree in
 * as a whole; with `check`, only tell what would change.
 */
export async function generateIntoFolder(host: Host, file: string, text: string, options: FolderOptions): Promise<FolderOutcome> {
  // The document is expanded and verified on every run, whatever the folder holds.
  const expanded = await documentFromText(file, text, host.cwd, options);
  if (!expanded.value) return { diagnostics: expanded.diagnostics };
  // Warnings of a lenient reading are reported with whatever the run does.
  const warnings = expanded.diagnostics;
  const dir = outputFolder(path.resolve(host.cwd, options.outDir));
  // A run swaps the whole folder: it must be one of its own, not the project or what holds it.
  if (isUnsafeFolder(host.cwd, file, dir)) return { diagnostics: [diagnostic("output/unsafe-folder", { dir: options.outDir })] };
  // Why: a file, device or pipe named as the folder is never renamed away for a folder in its place.
  const what = notAFolder(dir);
  if (what !== undefined) return { diagnostics: [diagnostic("output/not-a-folder", { dir: options.outDir, what })] };

  // Why: regeneration with nothing changed should cost little. The files are a pure
  // function of the verified document, the input's path, the options and codegen's own code and
  // templates; the manifest records the hash of all of these. When it matches and every file the
  // manifest lists is there as written, this run would write the same bytes: nothing to render.
  // A declaration's key is of its text (src/fresh.ts), which `codegen generate` checks before it
  // loads this module at all.
  // Why not with --check: the manifest is input (anyone can commit one), so trusting it there would
  // let a commit that changed a generated file and its manifest entries pass CI's check. --check
  // renders and formats everything and compares bytes.
  const key = expanded.fromDeclaration
    ? declarationKey(host.cwd, file, text, options)
    : generationKey(expanded.value, inputPathOf(host.cwd, file, options.outDir), options);
  const before = options.check ? undefined : readCurrent(dir);
  // Why not with --prettier: the files then depend on the project's prettier and its configuration
  // too, which the key does not hold (an edited .prettierrc must format the files again).
  // Why not for `migrate new`: the migration depends on the folder's snapshot, not on the key alone.
  if (before && options.migration === undefined && options.prettier !== true && before.manifest.input === key && isIntact(before)) {
    recover(dir);
    return { diagnostics: warnings, summary: { written: 0, unchanged: before.manifest.files.size, removed: 0 } };
  }

  if (!options.check) recover(dir);
  const current = readCurrent(dir);
  const result = await filesFromDocument(host, file, text, expanded.value, options, previousMigrations(current), options.migration);
  if (!result.value) return { diagnostics: [...warnings, ...result.diagnostics] };
  const files = result.value;
  const pending = result.postgres?.pending;
  const locate = locatorOf(file, text);
  // A change stored rows would not survive is never written (docs/migrations.md, "Safe to evolve").
  if (options.migration !== undefined && pending !== undefined && pending.refused.length > 0) {
    return { diagnostics: [...warnings, ...sortDiagnostics(pending.refused.map((r) => refusalDiagnostic(r, locate)))] };
  }
  // Why --check fails on it even when every file is current: CI must not ship tables no migration makes.
  const uncaptured = options.check && pending !== undefined ? sortDiagnostics(uncapturedDiagnostics(pending, options.outDir, locate)) : [];
  const notice =
    !options.check && options.migration === undefined && pending !== undefined
      ? [
          `the declaration ${pending.named[0]!.text}${pending.named.length > 1 ? ` (and ${pending.named.length - 1} more change${pending.named.length > 2 ? "s" : ""})` : ""}, which no migration captures: \`codegen migrate new\` writes it`,
        ]
      : [];
  const plan = planWrite(current, files, options.force, options.prettier !== true);
  const shown = (relative: string) => path.join(options.outDir, relative);
  const links = [...new Set(plan.foreign.filter((p) => p.link).map((p) => p.at))];
  const blocked = [
    ...links.map((link) => diagnostic("output/symbolic-link", { path: shown(link) })),
    ...plan.foreign.filter((p) => !p.link).map((p) => diagnostic("output/not-ours", { path: shown(p.at) })),
    ...plan.edited.map((p) => diagnostic("output/edited-by-hand", { path: shown(p) })),
  ];
  // Why: `codegen migrate` and the generated migrate() apply only the recorded migrations; a folder
  // holding another (added by hand, a link) is refused here too, so --check and migrate agree.
  const said = new Set(blocked.map((d) => d.message));
  const written = new Set(files.map((f) => f.path));
  blocked.push(...recordedMigrations(dir, current, options.outDir, options.force, written).refused.filter((d) => !said.has(d.message)));
  if (blocked.length > 0) return { diagnostics: [...warnings, ...blocked] };
  const summary = { written: plan.added.length + plan.changed.length, unchanged: plan.unchanged.length, removed: plan.removed.length };
  if (options.check) {
    if (!hasChanges(plan)) return { diagnostics: [...warnings, ...uncaptured], summary };
    const count = summary.written + summary.removed;
    // The differ (the `diff` package, some 30 modules) is loaded only for a folder that is not current.
    const { describeDrift } = await import("./write/report.js");
    return {
      diagnostics: [...warnings, diagnostic("output/out-of-date", { dir: options.outDir, count }), ...uncaptured],
      drift: describeDrift(plan, options.outDir),
    };
  }
  // Nothing to change and the manifest already right: touch nothing at all.
  const manifest = current.look(MANIFEST);
  if (hasChanges(plan) || manifest.kind !== "file" || manifest.text !== manifestText(files, key)) applyPlan(dir, plan, files, key);
  const migration = result.postgres?.written;
  return { diagnostics: warnings, summary, warnings: [...(result.warnings ?? []), ...notice], ...(migration !== undefined ? { migration } : {}) };
}

/** Where a path of the declaration `text` stands, read only when a diagnostic needs it; nothing for an OpenAPI input. */
function locatorOf(file: string, text: string): (path: readonly (string | number)[]) => SourceLocation | undefined {
  let source: LoadedDocument | undefined | null = null;
  return (at) => {
    if (source === null) source = loadDocument(file, text).document;
    return source !== undefined && isDeclarationValue(source.value) ? source.locate([...at]) : undefined;
  };
}

/** The hash of everything a generation's files depend on (see generateIntoFolder). */
function generationKey(document: OpenAPIV3_1.Document, inputPath: string, options: GenerateOptions): string {
  const settings = { format: options.format !== false, prettier: options.prettier === true, openapiVersion: options.openapiVersion ?? "3.1", inputPath };
  return hashOf(`${fingerprintOfCode()}\n${JSON.stringify(settings)}\n${JSON.stringify(document)}`);
}

/**
 * The pipeline: orders the stages and owns the I/O. Input text goes through compile/ (a verified
 * document, then the ApiModel), emit/ (the files, as text) and write/ (the output folder under
 * the manifest's rules). Only this module and write/ touch the disk; the stages are pure.
 */
import path from "node:path";
import type { OpenAPIV3_1 } from "openapi-types";
import { type Outcome, basePathOf, declarationLocator, documentFromText, modelOfDocument } from "./compile/compile.js";
import { toOpenApi30 } from "./compile/openapi/versions.js";
import { type Diagnostic, type DiagnosticCode, catalogue, diagnostic, formatDiagnostics, sortDiagnostics } from "./diagnostics/index.js";
import { type PostgresFiles, type PreviousMigrations, SNAPSHOT, parseSnapshot, postgresFiles } from "./emit/postgres/generate.js";
import { refusalDiagnostic, uncapturedDiagnostics } from "./postgres/evolution.js";
import { MIGRATION_FILE } from "./emit/postgres/migrations.js";
import type { DataFile, GeneratedFile } from "./emit/render.js";
import { loadTemplateSources } from "./emit/templates.js";
import { documentYaml, jsonToYaml } from "./emit/yaml.js";
import type { Host } from "./host.js";
import type { FolderOptions, GenerateOptions, InputOptions, OpenApiVersion } from "./options.js";
import { recordedMigrations } from "./postgres/recorded.js";
import { type FolderWrite, newTree, outputFolder, readCurrent, recover, writeFiles } from "./write/apply.js";
import { generationKey, inputPathOf, isCurrent, isUnsafeFolder } from "./write/fresh.js";
import { jsonShape, shapeOfData } from "./write/json-shape.js";
import { type CurrentTree, MANIFEST, type StoredWarning, manifestTextOf } from "./write/plan.js";
import { notAFolder } from "./write/target.js";

export type { FolderOptions, GenerateOptions, InputOptions, OpenApiVersion, Outcome };
/** The compile stage, for the commands (src/cli/) that stop after it. */
export { basePathOf, checkDeclaration, documentFromText, modelOfDocument, openapiFromText } from "./compile/compile.js";

/** Read an input file, turning the ways it can fail into diagnostics. */
export async function readInput(host: Host, file: string): Promise<Outcome<string>> {
  try {
    return { value: await host.readFile(file), diagnostics: [] };
  } catch (error) {
    // Reported at 1:1 of the file (a bad byte where it stands), so every diagnostic reads FILE:LINE:COLUMN.
    const at = { file, line: 1, column: 1, length: 1 };
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { diagnostics: [diagnostic("input/not-found", { path: file }, at)] };
    if (code === "EISDIR") return { diagnostics: [diagnostic("input/is-directory", { path: file }, at)] };
    if (code === "ENOTTEXT") {
      const { line = 1, column = 1 } = error as { line?: number; column?: number };
      return { diagnostics: [diagnostic("input/not-text", {}, { ...at, line, column })] };
    }
    return { diagnostics: [diagnostic("input/unreadable", { path: file, reason: (error as Error).message }, at)] };
  }
}

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

/** Read the templates once per process (src/emit/templates.ts). */
export { loadTemplateSources };

/**
 * Input text to every generated file (the OpenAPI document and the server code), without
 * touching the disk: load, validate, expand, verify, model, render, format.
 */
export async function generateFiles(host: Pick<Host, "cwd">, file: string, text: string, options: GenerateOptions): Promise<Outcome<GeneratedFile[]>> {
  const expanded = await documentFromText(file, text, host.cwd, options);
  if (!expanded.value) return { diagnostics: expanded.diagnostics };
  const files = await filesFromDocument(host, file, text, expanded.value, expanded.fromDeclaration !== true, options);
  return { ...(files.value ? { value: [...files.value] } : {}), diagnostics: [...expanded.diagnostics, ...files.diagnostics] };
}

/**
 * A verified document to every generated file: model, render, and with `--prettier` the
 * project's own formatter. The files come as they are rendered (openapi.yaml first), so a caller
 * that writes each and lets it go never holds them all. `fromOthers`: the document is written by
 * others, not expanded from a declaration (modelOfDocument). `previous`: the migrations an earlier
 * run left in the output folder (none: the first migration creates every table).
 */
async function filesFromDocument(
  host: Pick<Host, "cwd">,
  file: string,
  text: string,
  document: OpenAPIV3_1.Document,
  fromOthers: boolean,
  options: GenerateOptions,
  previous: PreviousMigrations = { migrations: [] },
): Promise<Outcome<Iterable<GeneratedFile>> & { readonly postgres?: PostgresFiles }> {
  // The document as written (3.0 converted once), kept with openapi.yaml: the manifest hashes its shape from it.
  const written = options.openapiVersion === "3.0" ? toOpenApi30(document as unknown as Record<string, unknown>) : document;
  // openapi.yaml, and whether the server's own writer made it (src/emit/yaml.ts). Made before the
  // model (its garbage then falls on a small heap) and let go once the caller has it (files()).
  let openapi: { readonly text: string; readonly servedAsIs: boolean } | undefined = documentYaml(written);
  // Each table keeps the names the folder's snapshot and migrations gave it (src/compile/tables.ts).
  const tableHistory = { snapshot: previous.snapshot, migrations: previous.migrations.map((m) => m.contents) };
  // Why not with --strict: what is rendered otherwise is warned of, and --strict makes warnings errors.
  const modelled = modelOfDocument(
    file,
    text,
    document,
    inputPathOf(host.cwd, file, options.outDir),
    tableHistory,
    fromOthers && options.strict !== true,
    options,
  );
  if (!modelled.value) return { diagnostics: modelled.diagnostics };
  const view = modelled.value;
  // The manifest hashes openapi.yaml's shape from the compact JSON text: told it as document.gen.ts
  // prints the same data, or made a member at a time (write/json-shape.ts) where it is asked for
  // first. Why the shape and not the data: the files outlive the model; the document need not.
  const json = jsonShape();
  const dataShape = () => json.shape() ?? shapeOfData(written);
  // document.gen.ts holds the document once, as JSON, and openapi.yaml's text too only where the
  // server's writer would not make it from that JSON at its first request.
  const served = { basePath: basePathOf(document), data: written, json, ...(openapi.servedAsIs ? {} : { yaml: openapi.text }) };
  // The PostgreSQL store and its migrations, for codegen's own resources (docs/postgres.md).
  const postgres = view.hasResources ? postgresFiles(view, previous, options.migration) : undefined;
  const filesView = { ...view, document: served, ...(postgres ? { migrations: postgres.migrations } : {}) };
  const data = postgres?.files ?? [];
  // Handlebars is loaded only by the commands that render (not `openapi`, not `validate`).
  const { renderFiles } = await import("./emit/render.js");
  const sources = loadTemplateSources();
  function* files(): Generator<DataFile> {
    yield { path: "openapi.yaml", contents: openapi!.text, dataShape };
    // Why: held through the rendering, its text (tens of megabytes for a large API) was live at the
    // run's peak in some runs and not in others, as the collector's timing fell.
    openapi = undefined;
    yield* renderFiles(filesView, sources);
    yield* data;
  }
  const outcome = { diagnostics: modelled.diagnostics, ...(postgres ? { postgres } : {}) };
  if (options.prettier !== true) return { value: files(), ...outcome };
  // `--prettier`: the project's own prettier and configuration have the last word.
  const { ProjectPrettierMissing, formatWithProjectPrettier } = await import("./emit/prettier.js");
  try {
    return { value: await formatWithProjectPrettier([...files()], path.resolve(host.cwd, options.outDir)), ...outcome };
  } catch (error) {
    if (!(error instanceof ProjectPrettierMissing)) throw error;
    return { diagnostics: [diagnostic("output/no-prettier", { dir: options.outDir })] };
  }
}

/** The model's warnings as the manifest keeps them (StoredWarning): each place without its file, which is the input's. */
function storedWarnings(diagnostics: readonly Diagnostic[]): StoredWarning[] {
  return diagnostics
    .filter((d) => d.severity === "warning")
    .map(({ code, message, location }) => ({ code, message, ...(location ? { line: location.line, column: location.column, length: location.length } : {}) }));
}

/** The warnings a manifest keeps, as diagnostics of the input `file` again; one whose code codegen does not know is dropped (a manifest is input). */
function replayedWarnings(stored: readonly StoredWarning[] | undefined, file: string): Diagnostic[] {
  return (stored ?? [])
    .filter((w) => Object.hasOwn(catalogue, w.code))
    .map(({ code, message, line, column, length }) => ({
      code: code as DiagnosticCode,
      severity: "warning" as const,
      message,
      ...(line !== undefined && column !== undefined ? { location: { file, line, column, length: length ?? 1 } } : {}),
    }));
}

/** The migrations an earlier run left in a folder: the snapshot and every migration file its manifest lists, in their order. */
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
    .sort()
    .flatMap((p) => {
      const contents = text(p);
      return contents === undefined ? [] : [{ path: p, contents }];
    });
  return { ...(snapshot ? { snapshot } : {}), migrations };
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
  let warnings = expanded.diagnostics;
  const dir = outputFolder(path.resolve(host.cwd, options.outDir));
  // A run swaps the whole folder: it must be one of its own, not the project or what holds it.
  if (isUnsafeFolder(host.cwd, file, dir)) return { diagnostics: [diagnostic("output/unsafe-folder", { dir: options.outDir })] };
  // Why: a file, device or pipe named as the folder is never renamed away for a folder in its place.
  const what = notAFolder(dir);
  if (what !== undefined) return { diagnostics: [diagnostic("output/not-a-folder", { dir: options.outDir, what })] };

  // Why: regeneration with nothing changed should cost little. The files are a pure
  // function of the verified document, the input's path, the options and codegen's own code and
  // templates; the manifest records the hash of all of these (src/write/fresh.ts, isCurrent).
  // A declaration's key is of its text, which `codegen generate` checks before it loads this module at all.
  const key = generationKey(host.cwd, file, options, expanded.fromDeclaration ? { declaration: text } : { document: expanded.value });
  if (!options.check) recover(dir);
  const current = readCurrent(dir);
  // Why not for `migrate new`: the migration depends on the folder's snapshot, not on the key alone.
  if (options.migration === undefined && isCurrent(current, key, options)) {
    // The model's warnings as the run that wrote the folder gave them: modelling is what is skipped.
    return {
      diagnostics: [...warnings, ...replayedWarnings(current.manifest.warnings, file)],
      summary: { written: 0, unchanged: current.manifest.files.size, removed: 0 },
    };
  }

  const result = await filesFromDocument(host, file, text, expanded.value, expanded.fromDeclaration !== true, options, previousMigrations(current));
  if (!result.value) return { diagnostics: [...warnings, ...result.diagnostics] };
  // The model's warnings too (error shapes the server cannot build), from here on.
  warnings = [...warnings, ...result.diagnostics];
  const files = result.value;
  const pending = result.postgres?.pending;
  const locate = declarationLocator(file, text);
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
  // A run that writes puts each file into the new tree as it comes and keeps only its hashes;
  // --check writes nothing and keeps the texts of what differs, for the diff it prints (writeFiles).
  const tree = options.check ? undefined : newTree(dir);
  let judged: FolderWrite;
  try {
    judged = await writeFiles(current, files, options.force, options.prettier !== true, tree);
  } catch (error) {
    tree?.abandon();
    throw error;
  }
  const shown = (relative: string) => path.join(options.outDir, relative);
  const links = [...new Set(judged.foreign.filter((p) => p.link).map((p) => p.at))];
  const blocked = [
    ...links.map((link) => diagnostic("output/symbolic-link", { path: shown(link) })),
    ...judged.foreign.filter((p) => !p.link).map((p) => diagnostic("output/not-ours", { path: shown(p.at) })),
    ...judged.edited.map((p) => diagnostic("output/edited-by-hand", { path: shown(p.path) })),
  ];
  // Why: `codegen migrate` and the generated migrate() apply only the recorded migrations; a folder
  // holding another (added by hand, a link) is refused here too, so --check and migrate agree.
  const said = new Set(blocked.map((d) => d.message));
  blocked.push(...recordedMigrations(dir, current, options.outDir, options.force, judged.generated).refused.filter((d) => !said.has(d.message)));
  const summary = judged.summary;
  const changes = summary.written + summary.removed;
  // The differ (the `diff` package, some 30 modules) is loaded only for a folder that is not current.
  // Why with a refusal too: --check shows what differs in every file, a hand-edited one included.
  const drift = async () =>
    judged.drift && changes + judged.edited.length > 0 ? { drift: (await import("./write/report.js")).describeDrift(judged.drift, options.outDir) } : {};
  if (blocked.length > 0) {
    tree?.abandon();
    return { diagnostics: [...warnings, ...blocked], ...(await drift()) };
  }
  if (!tree) {
    if (changes === 0) return { diagnostics: [...warnings, ...uncaptured], summary };
    return { diagnostics: [...warnings, diagnostic("output/out-of-date", { dir: options.outDir, count: changes }), ...uncaptured], ...(await drift()) };
  }
  // Nothing to change and the manifest already right: touch nothing at all.
  const manifest = current.look(MANIFEST);
  const manifestNow = manifestTextOf(judged.entries, key, storedWarnings(result.diagnostics));
  if (changes > 0 || manifest.kind !== "file" || manifest.text !== manifestNow) tree.commit(judged.keep, manifestNow);
  else tree.abandon();
  const migration = result.postgres?.written;
  return { diagnostics: warnings, summary, warnings: [...(result.postgres?.warnings ?? []), ...notice], ...(migration !== undefined ? { migration } : {}) };
}

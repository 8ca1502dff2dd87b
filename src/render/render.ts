import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type Handlebars from "handlebars";
import { collectGarbageOf } from "../memory.js";
import { breakLongLines, linesFit } from "./layout.js";
import type { ApiView, DocumentView, OperationGroupFileView, ResourceFileView } from "../model/view.js";
import type { PostgresView } from "../postgres/view.js";

/** A generated file: its path inside the output folder (always `/`-separated) and its text. */
export interface GeneratedFile {
  readonly path: string;
  readonly contents: string;
}

/** The template sources: one `.hbs` per generated file, and the static runtime files. */
export interface TemplateSources {
  /** `types.gen.ts.hbs` -> its source; each renders to the file named without `.hbs`. */
  readonly templates: Readonly<Record<string, string>>;
  /** `resource.gen.ts.hbs` -> its source; rendered once per resource into `resources/<collection>.gen.ts`. */
  readonly perResource: Readonly<Record<string, string>>;
  /** `operations.gen.ts.hbs` -> its source; rendered once per group of operations written by others into `operations/<group>.gen.ts`. */
  readonly perOperationGroup: Readonly<Record<string, string>>;
  /** `http.gen.ts` -> its source; copied into `runtime/` with the header line replaced. */
  readonly runtime: Readonly<Record<string, string>>;
}

/** The view of the API's own templates: the API and the document it serves. */
export type ApiFilesView = ApiView & { readonly document: DocumentView; readonly postgres?: PostgresView };

type View = ApiFilesView | ResourceFileView | OperationGroupFileView;
type Template = (view: View) => string;

/**
 * How every template is compiled (style.md rule 7): strict, no helpers but the built-in blocks.
 * Handlebars adds to the options it is given: it gets a copy, and these stay as hashed.
 */
const COMPILE_OPTIONS = Object.freeze({ strict: true, noEscape: true, preventIndent: true, knownHelpersOnly: true, explicitPartialContext: true });

const requireCjs = createRequire(import.meta.url);
/**
 * One isolated Handlebars environment of the runtime alone. Why (issue 14): the compiler (and
 * source-map, which it loads) was a fifth of a run; the templates are compiled when the package
 * is built, and the compiler loads only for a template without its precompiled copy.
 */
const handlebars = (requireCjs("handlebars/runtime") as typeof Handlebars).create();
const compiled = new Map<string, Template>();

/**
 * Where `npm run build` puts the precompiled templates (`dist/precompiled-templates.cjs`, the
 * same file seen from `src/` and from `dist/`): a CommonJS module, so it loads synchronously.
 */
const PRECOMPILED = fileURLToPath(new URL("../../dist/precompiled-templates.cjs", import.meta.url));

/** The key of a template's compiled form: Handlebars' version, the options and the source. */
export const templateKey = (source: string): string =>
  createHash("sha256")
    .update(`${handlebars.VERSION}\n${JSON.stringify(COMPILE_OPTIONS)}\n${source}`)
    .digest("hex");

/** Template key -> precompiled template, from the build; read once per process. */
let precompiled: Readonly<Record<string, TemplateSpecification>> | undefined;
type TemplateSpecification = Parameters<typeof Handlebars.template>[0];

function readPrecompiled(): Readonly<Record<string, TemplateSpecification>> {
  try {
    return requireCjs(PRECOMPILED) as Record<string, TemplateSpecification>;
  } catch {
    // A checkout without a build (the tests run from src/): every template is compiled here.
    return {};
  }
}

function compile(source: string): Template {
  let template = compiled.get(source);
  if (!template) {
    precompiled ??= readPrecompiled();
    // Only a copy made from this very source (and Handlebars, and options) is used; any other
    // template (one edited since the build) is compiled as it stands.
    const key = templateKey(source);
    const spec = Object.hasOwn(precompiled, key) ? precompiled[key] : undefined;
    template = spec ? handlebars.template<View>(spec) : compiler().compile<View>(source, { ...COMPILE_OPTIONS });
    compiled.set(source, template);
  }
  return template;
}

let fullHandlebars: typeof Handlebars | undefined;
/** Handlebars with its compiler, in an isolated environment, loaded on first need. */
function compiler(): typeof Handlebars {
  fullHandlebars ??= (requireCjs("handlebars") as typeof Handlebars).create();
  return fullHandlebars;
}

/**
 * Precompile every template once, when the package is built (src/format/build-runtime.ts): a
 * CommonJS module mapping each template's key to its compiled form, which `compile` uses when
 * the source still matches.
 */
export function writePrecompiledTemplates(sources: TemplateSources, file = PRECOMPILED): void {
  const all = [...Object.values(sources.templates), ...Object.values(sources.perResource), ...Object.values(sources.perOperationGroup)];
  const entries = all.map((source) => `  ${JSON.stringify(templateKey(source))}: ${String(compiler().precompile(source, { ...COMPILE_OPTIONS }))},\n`);
  writeFileSync(file, `// Written by \`npm run build\` (src/render/render.ts): the templates, precompiled.\nmodule.exports = {\n${entries.join("")}};\n`);
}

/**
 * Blank comment lines and template indentation leave trailing spaces, and the template's first
 * (comment) line leaves a blank line; no string literal in generated code spans lines, so
 * trimming line ends is safe.
 */
export function tidy(text: string): string {
  // Why the line ends found by indexOf (issue 14): a scan of every character in JavaScript was a
  // few dozen milliseconds of megabytes of laid-out literals at 100 resources, where the native
  // search skips them; only the characters before each line end are looked at. A text with other
  // line terminators of ECMAScript (`$` with the `m` flag) is scanned whole (scanTidy).
  if (text.includes("\r") || text.includes("\u2028") || text.includes("\u2029")) return scanTidy(text).replace(/^\n+/, "");
  const parts: string[] = [];
  let copied = 0;
  for (let at = text.indexOf("\n"); ; at = text.indexOf("\n", at + 1)) {
    const lineEnd = at === -1 ? text.length : at;
    let end = lineEnd;
    while (end > copied && isBlank(text.charCodeAt(end - 1))) end--;
    if (end < lineEnd) {
      parts.push(text.slice(copied, end));
      copied = lineEnd;
    }
    if (at === -1) break;
  }
  parts.push(text.slice(copied));
  return parts.join("").replace(/^\n+/, "");
}

/** A space or a tab. */
const isBlank = (code: number) => code === 0x20 || code === 0x09;

/** tidy's trimming, one character at a time: every line terminator of ECMAScript ends a line. */
function scanTidy(text: string): string {
  const parts: string[] = [];
  let copied = 0;
  let spaces = -1;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (isBlank(code)) {
      if (spaces < 0) spaces = i;
      continue;
    }
    if (spaces >= 0 && (code === 0x0a || code === 0x0d || code === 0x2028 || code === 0x2029)) {
      parts.push(text.slice(copied, spaces));
      copied = i;
    }
    spaces = -1;
  }
  parts.push(text.slice(copied, spaces >= 0 ? spaces : text.length));
  return parts.join("");
}

/**
 * The templates written in prettier's own layout (see linesFit in layout.ts): a file of theirs
 * whose every line fits is final as rendered (test/final-layout.test.ts holds them to it).
 */
const CANONICAL_TEMPLATES = new Set<string>([
  "index.gen.ts.hbs",
  "handlers.gen.ts.hbs",
  "server.gen.ts.hbs",
  "store.gen.ts.hbs",
  "types.gen.ts.hbs",
  "postgres.gen.ts.hbs",
  "resource.gen.ts.hbs",
  "operations.gen.ts.hbs",
]);

/**
 * The paths of the rendered files that are in prettier's layout as they stand (formatting skips
 * them): those the view laid out whole (`finalFiles`), and a canonical template's file every line
 * of which fits, unless some part of it was not surely laid out (`unsureFiles`).
 */
export function finalAsRendered(files: readonly GeneratedFile[], view: ApiFilesView): string[] {
  const unsure = new Set([...view.unsureFiles, ...(view.postgres?.laidOut === false ? [POSTGRES_TEMPLATE.replace(/\.hbs$/, "")] : [])]);
  const canonical = files.filter((file) => {
    if (!file.path.endsWith(".ts") || file.path.startsWith("runtime/") || unsure.has(file.path)) return false;
    const template = file.path.startsWith("resources/")
      ? "resource.gen.ts.hbs"
      : file.path.startsWith("operations/")
        ? "operations.gen.ts.hbs"
        : `${file.path}.hbs`;
    // The laid-out declarations of postgres.gen.ts may hold lines longer than the width (strings).
    const postgres = file.path === "postgres.gen.ts" && view.postgres ? [view.postgres.tablesStatement, view.postgres.migrationsStatement] : [];
    return CANONICAL_TEMPLATES.has(template) && linesFit(postgres.reduce((text, statement) => text.replace(statement, ""), file.contents));
  });
  return [...view.finalFiles, ...canonical.map((file) => file.path)];
}

/** The templates of the stores, whose long lines breakLongLines breaks. */
const STORE_TEMPLATES = new Set(["store.gen.ts.hbs", "postgres.gen.ts.hbs"]);

/** The PostgreSQL store's template and runtime: rendered only with the view's `postgres` part (APIs with resources). */
const POSTGRES_TEMPLATE = "postgres.gen.ts.hbs";
const POSTGRES_RUNTIME = ["postgres.gen.ts", "migrate.gen.ts"];

/** The template of the served document (src/render/document-layout.ts). */
const DOCUMENT_TEMPLATE = "document.gen.ts.hbs";

/** The first line of a static runtime file, replaced by the view's header. */
const RUNTIME_HEADER = /^\/\/ Generated by codegen\. Do not edit\.\n/;

/**
 * Render every file of the server code from the view model. Pure: the same view and sources
 * give the same files, in the same order (templates, then runtime, each by name).
 */
export function renderFiles(view: ApiFilesView, sources: TemplateSources): GeneratedFile[] {
  const files: GeneratedFile[] = [];
  for (const name of Object.keys(sources.templates).sort()) {
    if (name === POSTGRES_TEMPLATE && view.postgres === undefined) continue;
    const text = tidy(compile(sources.templates[name]!)(view));
    // The stores' long lines broken as prettier breaks them (issue 14: their files then skip it).
    files.push({ path: name.replace(/\.hbs$/, ""), contents: STORE_TEMPLATES.has(name) ? breakLongLines(text) : text });
    // Why (issue 14): Handlebars builds a file of pieces, one string per piece; the pieces of a large
    // file (api.gen.ts: 7.5 MB at 1000 resources) are garbage once it is flat, and collected before
    // the next file is rendered (the peak of 1000 resources was here: 20 MB lower with this). Not
    // after document.gen.ts: its text is the served document's members (one string made once),
    // whose rendering leaves little garbage, and nothing large is rendered after it.
    if (name !== DOCUMENT_TEMPLATE) collectGarbageOf(text);
  }
  for (const name of Object.keys(sources.perResource).sort()) {
    for (const resource of view.resources) {
      const text = compile(sources.perResource[name]!)({ header: view.header, resource });
      files.push({ path: `resources/${resource.fileName}.gen.ts`, contents: tidy(text) });
    }
  }
  for (const name of Object.keys(sources.perOperationGroup).sort()) {
    for (const group of view.operationGroups) {
      const text = compile(sources.perOperationGroup[name]!)({ header: view.header, group });
      // The long lines of the interface's methods and the binder's arrows broken as prettier breaks them (issue 16 item 7).
      files.push({ path: `operations/${group.fileName}.gen.ts`, contents: breakLongLines(tidy(text)) });
    }
  }
  for (const name of Object.keys(sources.runtime).sort()) {
    if (POSTGRES_RUNTIME.includes(name) && view.postgres === undefined) continue;
    const source = sources.runtime[name]!;
    if (!RUNTIME_HEADER.test(source)) throw new Error(`runtime file ${name} lacks its header line`);
    files.push({ path: `runtime/${name}`, contents: source.replace(RUNTIME_HEADER, `${view.header}\n`) });
  }
  return files;
}

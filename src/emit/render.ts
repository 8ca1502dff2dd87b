import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type Handlebars from "handlebars";
import { binderSignature, constDeclaration, jsonDocumentLiteral, printLiteral, quoted, typeAlias } from "./print.js";
import { breakLongLines } from "./layout.js";
import type { ApiData, ApiModel, DocumentView, OperationGroupView, OperationView, ResourceView } from "../model/api-model.js";
import type { MigrationSpec } from "#runtime/migrate.gen.js";
import type { TableSpec } from "#runtime/postgres.gen.js";

/** A generated file: its path inside the output folder (always `/`-separated) and its text. */
export interface GeneratedFile {
  readonly path: string;
  readonly contents: string;
}

/**
 * A generated file; a YAML or JSON one may carry the JSON data its text was written from
 * (`jsonToYaml(data)` or `JSON.stringify(data)`), whose shape is then that data's.
 */
export interface DataFile extends GeneratedFile {
  readonly data?: unknown;
  /**
   * Or what gives that data's shape hash (`shapeOfData`'s), known only once later files are
   * rendered: asked for after them when it can wait.
   */
  readonly dataShape?: () => string;
}

/** The template sources: one `.hbs` per generated file, and the static runtime files. */
export interface TemplateSources {
  /** `types.gen.ts.hbs` -> its source; each renders to the file named without `.hbs`. */
  readonly templates: Readonly<Record<string, string>>;
  /** resources/resource.gen.ts.hbs: rendered once per resource into `resources/<collection>.gen.ts`. */
  readonly resource: string;
  /** operations/operations.gen.ts.hbs: rendered once per group of operations written by others into `operations/<group>.gen.ts`. */
  readonly operationGroup: string;
  /** `http.gen.ts` -> its source; copied into `runtime/` with the header line replaced. */
  readonly runtime: Readonly<Record<string, string>>;
}

/**
 * The view of the API's own templates: the API, the document it serves and, for the PostgreSQL
 * store (APIs with resources), the migrations `migrate()` applies.
 */
export type ApiFilesView = ApiModel & { readonly document: DocumentView; readonly migrations?: readonly MigrationSpec[] };

type Template = (view: object) => string;

/**
 * How every template is compiled (style.md rule 7): strict, no helpers but the built-in blocks.
 * Handlebars adds to the options it is given: it gets a copy, and these stay as hashed.
 */
const COMPILE_OPTIONS = Object.freeze({ strict: true, noEscape: true, preventIndent: true, knownHelpersOnly: true, explicitPartialContext: true });

const requireCjs = createRequire(import.meta.url);
/**
 * One isolated Handlebars environment of the runtime alone. Why: the compiler (and
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
    template = spec ? handlebars.template<object>(spec) : compiler().compile<object>(source, { ...COMPILE_OPTIONS });
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
 * Precompile every template once, when the package is built (src/emit/precompile.ts): a
 * CommonJS module mapping each template's key to its compiled form, which `compile` uses when
 * the source still matches.
 */
export function writePrecompiledTemplates(sources: TemplateSources, file = PRECOMPILED): void {
  const all = [...Object.values(sources.templates), sources.resource, sources.operationGroup];
  const entries = all.map((source) => `  ${JSON.stringify(templateKey(source))}: ${String(compiler().precompile(source, { ...COMPILE_OPTIONS }))},\n`);
  writeFileSync(file, `// Written by \`npm run build\` (src/emit/render.ts): the templates, precompiled.\nmodule.exports = {\n${entries.join("")}};\n`);
}

/**
 * Blank comment lines and template indentation leave trailing spaces, and the template's first
 * (comment) line leaves a blank line. No string literal in generated code spans lines (escape.ts
 * escapes every line terminator), so trimming line ends is safe.
 */
export function tidy(text: string): string {
  // The rule as a regexp, for a text with a line end other than `\n`. Why the lookbehind: without
  // it a run of spaces not at a line's end was tried from each of its spaces, each try
  // backtracking through the rest of the run: quadratic in the run.
  if (text.includes("\r") || text.includes("\u2028") || text.includes("\u2029")) {
    return text.replace(/(?<![ \t])[ \t]+$/gm, "").replace(/^\n+/, "");
  }
  // Why line ends found by indexOf: the regexp was still tried at every space of every
  // indentation (0.26 s at 1000 resources), and the lines that end in a blank are few.
  let out = "";
  let kept = 0;
  const trimTo = (end: number) => {
    let start = end;
    while (start > kept && isBlank(text.charCodeAt(start - 1))) start--;
    if (start === end) return;
    out += text.slice(kept, start);
    kept = end;
  };
  for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", end + 1)) if (isBlank(text.charCodeAt(end - 1))) trimTo(end);
  trimTo(text.length);
  const trimmed = kept === 0 ? text : out + text.slice(kept);
  let first = 0;
  while (trimmed.charCodeAt(first) === 0x0a) first++;
  return first === 0 ? trimmed : trimmed.slice(first);
}

const isBlank = (code: number) => code === 0x20 || code === 0x09;

/** The PostgreSQL store's template and runtime: rendered only with the view's `migrations` (APIs with resources). */
const POSTGRES_TEMPLATE = "postgres.gen.ts.hbs";
const POSTGRES_RUNTIME = ["postgres.gen.ts", "postgres-store.gen.ts", "migrate.gen.ts"];

/** The first line of a static runtime file, replaced by the view's header. */
const RUNTIME_HEADER = /^\/\/ Generated by codegen\. Do not edit\.\n/;

/** A resource as the stores' templates read it: with its filters as a literal. */
const withFilters = <R extends ResourceView>(resource: R) => ({ ...resource, listFilters: printLiteral(resource.filters) });

/** api.gen.ts's five declarations, printed from the API's data. */
function apiStatements(api: ApiData) {
  return {
    schemas: constDeclaration("schemas: SchemaTable", Object.fromEntries(api.schemas)),
    resources: constDeclaration("resources", Object.fromEntries(api.resources), "{ readonly [collection: string]: ResourceSpec }"),
    routes: constDeclaration("routes: readonly RouteSpec[]", api.routes),
    securitySchemes: constDeclaration("securitySchemes", api.securitySchemes, "{ readonly [name: string]: SchemeSpec }"),
    index: constDeclaration("index: readonly Link[]", api.index),
  };
}

/** document.gen.ts's members as string literals; `yaml` empty where the server makes it. */
const documentLiterals = (document: DocumentView) => ({
  basePath: quoted(document.basePath),
  // Why a template literal of text in lines: a change of the document is a change of the lines it
  // touches, in review and in `--check`'s diff, not of one line of the whole.
  json: jsonDocumentLiteral(document.data, document.json),
  yaml: document.yaml === undefined ? "" : quoted(document.yaml),
});

/** What each API template reads: the view, with what it prints from the view's data printed. */
const CONTEXTS: Readonly<Record<string, (view: ApiFilesView) => object>> = {
  "api.gen.ts.hbs": (view) => ({ header: view.header, api: apiStatements(view.api) }),
  "types.gen.ts.hbs": (view) => ({ ...view, types: view.types.map((type) => ({ ...type, declaration: typeAlias(type.name, type.type) })) }),
  "handlers.gen.ts.hbs": (view) => ({
    ...view,
    resourceHandlersDeclaration: view.resourceHandlers === undefined ? "" : typeAlias("ResourceHandlers", view.resourceHandlers),
  }),
  "document.gen.ts.hbs": (view) => ({ header: view.header, document: documentLiterals(view.document) }),
  "store.gen.ts.hbs": (view) => ({ ...view, resources: view.resources.map(withFilters) }),
  [POSTGRES_TEMPLATE]: (view) => ({
    ...view,
    postgres: {
      tablesStatement: constDeclaration("tables: { readonly [collection: string]: TableSpec }", tableSpecs(view)),
      migrationsStatement: constDeclaration("migrations: readonly MigrationSpec[]", view.migrations!),
      resources: view.resources.map(withFilters),
    },
  }),
};

/** The store's TableSpec of each resource's table, by collection (the model's tables, as the store reads them). */
const tableSpecs = (view: ApiModel): { readonly [collection: string]: TableSpec } =>
  Object.fromEntries(
    view.tables.tables.map((t) => [
      t.collection,
      { table: t.table, idKind: t.idKind, columns: t.columns.map((c) => ({ field: c.field, column: c.column, kind: c.kind })) },
    ]),
  );

/** An operation's (or resource method's) input and result declarations. */
const withDeclarations = <O extends Pick<OperationView, "inputName" | "inputType" | "resultName" | "resultType">>(operation: O) => ({
  ...operation,
  inputDeclaration: typeAlias(operation.inputName, operation.inputType),
  resultDeclaration: typeAlias(operation.resultName, operation.resultType),
});

/** A resource's own file as its template reads it. */
const resourceFile = (header: string, resource: ResourceView) => ({
  header,
  resource: {
    ...resource,
    storedDeclaration: typeAlias(resource.storedName, resource.storedType),
    binderSignature: binderSignature(resource.binderName, resource.interfaceName),
    methods: resource.methods.map(withDeclarations),
  },
});

/** A group of operations' own file as its template reads it. */
const operationGroupFile = (header: string, group: OperationGroupView) => ({
  header,
  // Why Partial: the application may leave operations out; those answer 501 (docs/openapi.md, "Partial handlers").
  group: {
    ...group,
    binderSignature: binderSignature(group.binderName, `Partial<${group.interfaceName}> = {}`),
    operations: group.operations.map(withDeclarations),
  },
});

/**
 * Render every file of the server code from the view model. Pure: the same view and sources
 * give the same files, in the same order (templates, then runtime, each by name). Each file is
 * rendered when it is asked for, so a caller that writes it and lets it go holds one at a time.
 */
export function* renderFiles(view: ApiFilesView, sources: TemplateSources): Generator<GeneratedFile> {
  for (const name of Object.keys(sources.templates).sort()) {
    if (name === POSTGRES_TEMPLATE && view.migrations === undefined) continue;
    const context = Object.hasOwn(CONTEXTS, name) ? CONTEXTS[name]!(view) : view;
    const text = tidy(compile(sources.templates[name]!)(context));
    // document.gen.ts holds the document's JSON in a template literal: its lines are text, not code.
    yield { path: name.replace(/\.hbs$/, ""), contents: name === "document.gen.ts.hbs" ? text : breakLongLines(text) };
  }
  for (const resource of view.resources) {
    const text = compile(sources.resource)(resourceFile(view.header, resource));
    yield { path: `resources/${resource.fileName}.gen.ts`, contents: breakLongLines(tidy(text)) };
  }
  for (const group of view.operationGroups) {
    const text = compile(sources.operationGroup)(operationGroupFile(view.header, group));
    yield { path: `operations/${group.fileName}.gen.ts`, contents: breakLongLines(tidy(text)) };
  }
  for (const name of Object.keys(sources.runtime).sort()) {
    if (POSTGRES_RUNTIME.includes(name) && view.migrations === undefined) continue;
    const source = sources.runtime[name]!;
    if (!RUNTIME_HEADER.test(source)) throw new Error(`runtime file ${name} lacks its header line`);
    yield { path: `runtime/${name}`, contents: source.replace(RUNTIME_HEADER, `${view.header}\n`) };
  }
}

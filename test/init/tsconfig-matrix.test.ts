// Generated code lands in projects whose tsconfig is their own: it must compile under every
// common strict setup, not only under the options of test/support/tsconfig.generated.json. Every
// golden tree, a project made by `codegen init` and the output of a document without component
// schemas are type-checked under each configuration below, on TypeScript 5 and 6, with zero
// errors. One program per configuration and version, through the compiler API (no process per run).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import ts6 from "typescript";
import ts5Module from "typescript5";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { nodeHost } from "../../src/host.js";
import { initFiles } from "../../src/init/init.js";
import { fixtureCases, ROOT } from "../support/fixtures.js";

type Ts = typeof ts6;
const ts5 = ts5Module as unknown as Ts;

/** The options of @tsconfig/strictest that check types or code, beside `strict`. */
const STRICTEST = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  noImplicitReturns: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  noFallthroughCasesInSwitch: true,
  allowUnreachableCode: false,
  allowUnusedLabels: false,
  isolatedModules: true,
  erasableSyntaxOnly: true,
};

/**
 * The configurations: `strict` alone and with the strictest options; `lib` left to its default
 * (which brings in the DOM, so fetch's types are the DOM's) and `ES2023` without it; NodeNext and
 * ESNext with Bundler resolution (where a file without import or export is not a module);
 * verbatimModuleSyntax. (noPropertyAccessFromIndexSignature, also in @tsconfig/strictest, is not
 * here yet: the runtime reads its records with dots.)
 */
const CONFIGS: Record<string, Record<string, unknown>> = {
  "strict, NodeNext, default lib (DOM)": { strict: true, module: "NodeNext", moduleResolution: "NodeNext" },
  "strictest, NodeNext, verbatimModuleSyntax, lib ES2023 (no DOM)": {
    ...STRICTEST,
    module: "NodeNext",
    moduleResolution: "NodeNext",
    verbatimModuleSyntax: true,
    lib: ["ES2023"],
  },
  "strict, ESNext + Bundler, default lib (DOM)": { strict: true, module: "ESNext", moduleResolution: "Bundler" },
  "strictest, ESNext + Bundler, verbatimModuleSyntax, lib ES2023 + DOM": {
    ...STRICTEST,
    module: "ESNext",
    moduleResolution: "Bundler",
    verbatimModuleSyntax: true,
    lib: ["ES2023", "DOM", "DOM.Iterable"],
  },
};

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-tsconfig-matrix-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Every .ts file under `dir`, absolute. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.parentPath.includes("node_modules"))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/** `codegen generate input -o out` in-process, on real files; throws with its output when it fails. */
async function generate(input: string, out: string): Promise<void> {
  let output = "";
  const host = { ...nodeHost(), cwd: path.dirname(input), colour: false, stdout: (t: string) => void (output += t), stderr: (t: string) => void (output += t) };
  const code = await main(["generate", input, "-o", out, "--quiet"], host);
  if (code !== 0) throw new Error(`codegen generate ${input} failed:\n${output}`);
}

let roots: string[] = [];
/** Runtime files byte-identical to the first tree's: each program checks them once, through the first tree's copy. */
const sameRuntime = new Map<string, string>();

beforeAll(async () => {
  // A project `codegen init` writes, generated as its `npm run generate` does; its own src
  // (main.ts, handlers) is compiled too. The folder says "type": "module" as init's package.json does.
  const project = path.join(scratch, "init");
  for (const file of initFiles({ name: "matrix", codegenSpec: "^0.1.0" })) {
    mkdirSync(path.dirname(path.join(project, file.path)), { recursive: true });
    writeFileSync(path.join(project, file.path), file.contents);
  }
  // A user's file beside it: options read from the environment are `string | undefined`, which
  // every optional option takes (under exactOptionalPropertyTypes too).
  writeFileSync(
    path.join(project, "src/from-env.ts"),
    `import { createServer, verifyJwt } from "./generated/index.gen.js";
import { projects } from "./handlers/projects.js";
import { tasks } from "./handlers/tasks.js";

const origin = process.env.CORS_ORIGIN;
export const server = createServer({
  handlers: { projects, tasks },
  verifyToken: verifyJwt({ issuer: "https://id.example.com/", audience: "api", algorithms: ["HS256"], secret: process.env.JWT_SECRET, jwksUrl: process.env.JWKS_URL }),
  cursorKey: process.env.CURSOR_KEY,
  basePath: process.env.BASE_PATH,
  cors: origin === undefined ? undefined : [origin],
  bodyLimit: process.env.BODY_LIMIT === undefined ? undefined : Number(process.env.BODY_LIMIT),
});
`,
  );
  symlinkSync(path.join(ROOT, "node_modules"), path.join(project, "node_modules"), "dir");
  await generate(path.join(project, "api.yaml"), path.join(project, "src/generated"));
  // A document without component schemas: its types.gen.ts declares nothing.
  const bare = path.join(scratch, "no-schemas");
  mkdirSync(bare);
  writeFileSync(path.join(scratch, "package.json"), JSON.stringify({ type: "module" }));
  writeFileSync(
    path.join(bare, "openapi.yaml"),
    'openapi: 3.1.0\ninfo: {title: t, version: "1"}\npaths:\n  /ping:\n    get:\n      operationId: ping\n      responses:\n        "204": {description: ok}\n',
  );
  await generate(path.join(bare, "openapi.yaml"), path.join(bare, "out"));

  const trees = [
    ...fixtureCases("valid").map((name) => path.join(ROOT, "fixtures/valid", name, "expected")),
    path.join(project, "src"),
    path.join(bare, "out"),
  ];
  roots = trees.flatMap(tsFiles);
  // The runtime files are copied into every tree; the same bytes are checked once, as the first copy.
  const firstCopy = new Map<string, string>();
  for (const file of roots.filter((candidate) => candidate.includes(`${path.sep}runtime${path.sep}`))) {
    const key = `${path.basename(file)}\n${readFileSync(file, "utf8")}`;
    const first = firstCopy.get(key);
    if (first === undefined) firstCopy.set(key, file);
    else sameRuntime.set(file, first);
  }
  roots = roots.filter((file) => !sameRuntime.has(file));
}, 120_000);

const parsedLibraries = new Map<Ts, Map<string, ts6.SourceFile | undefined>>();

/** tsc's errors for the trees under `raw` options, one line each, paths relative to the repository. */
function compileErrors(ts: Ts, raw: Record<string, unknown>): string[] {
  const { options, errors } = ts.convertCompilerOptionsFromJson(
    // Why types: TypeScript 6 includes no @types package unless it is named; skipLibCheck: the generated code is what is checked.
    { ...raw, target: "ES2022", types: ["node"], typeRoots: [path.join(ROOT, "node_modules/@types")], skipLibCheck: true, noEmit: true },
    ROOT,
  );
  expect(errors.map((error) => ts.flattenDiagnosticMessageText(error.messageText, " "))).toEqual([]);
  const host = ts.createCompilerHost(options);
  // Library declarations (lib.dom.d.ts, @types/node) parse alike for every configuration of one
  // module kind: parsed once per version and kind.
  const parsed = parsedLibraries.get(ts) ?? new Map<string, ts6.SourceFile | undefined>();
  parsedLibraries.set(ts, parsed);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (!fileName.includes(`${path.sep}node_modules${path.sep}`) || !fileName.endsWith(".d.ts"))
      return getSourceFile(fileName, languageVersion, onError, shouldCreate);
    const format = typeof languageVersion === "object" ? `${languageVersion.languageVersion} ${languageVersion.impliedNodeFormat}` : `${languageVersion}`;
    const key = `${fileName} ${format} ${options.module} ${options.moduleDetection}`;
    if (!parsed.has(key)) parsed.set(key, getSourceFile(fileName, languageVersion, onError, shouldCreate));
    return parsed.get(key);
  };
  const cache = ts.createModuleResolutionCache(ROOT, (name) => name, options);
  host.resolveModuleNameLiterals = (literals, containingFile, redirected, compilerOptions, containingSource) =>
    literals.map((literal) => {
      const mode = ts.getModeForUsageLocation(containingSource, literal, compilerOptions);
      const resolved = ts.resolveModuleName(literal.text, containingFile, compilerOptions, host, cache, redirected, mode);
      const module = resolved.resolvedModule;
      const twin = module === undefined ? undefined : sameRuntime.get(path.resolve(module.resolvedFileName));
      return twin === undefined || module === undefined ? resolved : { ...resolved, resolvedModule: { ...module, resolvedFileName: twin } };
    });
  const program = ts.createProgram(roots, options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, " ");
    if (diagnostic.file === undefined || diagnostic.start === undefined) return `TS${diagnostic.code} ${message}`;
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const where = path.relative(ROOT, diagnostic.file.fileName).replace(path.relative(ROOT, scratch), "<scratch>");
    return `${where}(${line + 1},${character + 1}): TS${diagnostic.code} ${message}`;
  });
}

describe.each([
  ["TypeScript 5", ts5],
  ["TypeScript 6", ts6],
])("generated code compiles under %s", (major, ts) => {
  it("is that version", () => expect(`TypeScript ${ts.version.split(".")[0]!}`).toBe(major));

  it.each(Object.keys(CONFIGS))(
    "%s",
    (name) => {
      expect(compileErrors(ts, CONFIGS[name]!)).toEqual([]);
    },
    300_000,
  );
});

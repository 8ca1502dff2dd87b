// Type-checks many trees of generated code in one TypeScript program, in-process, through the
// compiler API. Every tree carries its own copy of the runtime (runtime/*.gen.ts, half a megabyte),
// identical but for its header comment: each program checks the runtime once, through the first
// copy, and each tree's code against it, instead of one copy per tree. Library declarations
// (lib.*.d.ts, @types/node) are parsed once per worker and reused by later programs.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts6 from "typescript";
import { ROOT } from "./fixtures.js";

/** Every .ts file under `dir`, as `tsc -p` with `include: ["**\/*.ts"]` finds them (node_modules left out), sorted. */
export function tsFilesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !path.relative(dir, entry.parentPath).split(path.sep).includes("node_modules"))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/**
 * The text of a runtime copy without its header, when the header is one line comment and nothing
 * else: a `//` line with no other line terminator (ECMA-262 "LineTerminator") in it. Copies whose
 * rests are equal then mean the same code, whatever their headers say.
 */
function runtimeBody(file: string): string | undefined {
  if (!file.split(path.sep).includes("runtime") || !file.endsWith(".gen.ts")) return undefined;
  const text = readFileSync(file, "utf8");
  const end = text.indexOf("\n");
  const header = end < 0 ? text : text.slice(0, end);
  if (!header.startsWith("//") || /[\r\u2028\u2029]/.test(header)) return undefined;
  return `${path.basename(file)}\n${packageType(file)}\n${text.slice(end + 1)}`;
}

/** The "type" of the package.json nearest above `file`: under NodeNext it says whether the file is an ES module. */
function packageType(file: string): string {
  for (let dir = path.dirname(file); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest)) return String((JSON.parse(readFileSync(manifest, "utf8")) as { type?: unknown }).type ?? "commonjs");
  }
  return "commonjs";
}

/** The compiler API of TypeScript 6, or of another version with the same shape (test/init/tsconfig-matrix.test.ts's TypeScript 5). */
export type Ts = typeof ts6;

/** Library declarations parsed so far in this worker, per TypeScript, by file, language version, module kind and detection. */
const parsedLibraries = new Map<Ts, Map<string, ts6.SourceFile | undefined>>();

/**
 * The errors of one program over `roots` under `compilerOptions` (tsconfig.json's form), one line
 * each as tsc prints them (`file(line,col): TSnnnn message`), paths relative to the repository.
 * Runtime copies equal to an earlier root's but for their header comment are left out, and
 * imports of them resolve to that earlier copy.
 */
export function typeCheck(roots: readonly string[], compilerOptions: Record<string, unknown>, ts: Ts = ts6): string[] {
  const { options, errors } = ts.convertCompilerOptionsFromJson({ ...compilerOptions, noEmit: true }, ROOT);
  if (errors.length > 0) return errors.map((error) => `options: ${ts.flattenDiagnosticMessageText(error.messageText, " ")}`);
  const twinOf = new Map<string, string>();
  const firstCopy = new Map<string, string>();
  for (const file of roots.map((root) => path.resolve(root))) {
    const body = runtimeBody(file);
    if (body === undefined) continue;
    const first = firstCopy.get(body);
    if (first === undefined) firstCopy.set(body, file);
    else twinOf.set(file, first);
  }
  const host = ts.createCompilerHost(options);
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
  host.resolveModuleNameLiterals = (literals, containingFile, redirected, resolutionOptions, containingSource) =>
    literals.map((literal) => {
      const mode = ts.getModeForUsageLocation(containingSource, literal, resolutionOptions);
      const resolved = ts.resolveModuleName(literal.text, containingFile, resolutionOptions, host, cache, redirected, mode);
      const module = resolved.resolvedModule;
      const twin = module === undefined ? undefined : twinOf.get(path.resolve(module.resolvedFileName));
      return twin === undefined || module === undefined ? resolved : { ...resolved, resolvedModule: { ...module, resolvedFileName: twin } };
    });
  const program = ts.createProgram(
    roots.map((root) => path.resolve(root)).filter((file) => !twinOf.has(file)),
    options,
    host,
  );
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n  ");
    if (diagnostic.file === undefined || diagnostic.start === undefined) return `TS${diagnostic.code}: ${message}`;
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${path.relative(ROOT, diagnostic.file.fileName)}(${line + 1},${character + 1}): TS${diagnostic.code}: ${message}`;
  });
}

/** tsconfig.generated.json's options, with `overrides`; typeRoots made absolute, so the trees may live anywhere. */
export function generatedOptions(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const config = JSON.parse(readFileSync(path.join(ROOT, "test/support/tsconfig.generated.json"), "utf8")) as { compilerOptions: Record<string, unknown> };
  return { ...config.compilerOptions, typeRoots: [path.join(ROOT, "node_modules/@types")], ...overrides };
}

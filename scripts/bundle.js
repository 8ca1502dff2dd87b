// The build's last step (start-up): dist/ as one CommonJS file, dist/codegen.cjs, that
// bin/codegen.js runs through V8's code cache (dist/codegen.cjs.cache, written by a warm-up run).
// Why: a full `codegen generate` of the blog fixture spent a third of its time resolving, reading
// and compiling some 50 ES modules of dist/ and 80 of yaml and commander; Node 20 has no compile
// cache for ES modules (module.enableCompileCache is Node 22), but vm.Script takes cachedData.
// Packages loaded only by some commands (prettier, typescript, the validators, pg, PGlite) stay
// outside, imported where they are used, as before.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import ts from "typescript";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = path.join(root, "dist");
const EXTERNAL = [
  "prettier",
  "typescript",
  "@apidevtools/swagger-parser",
  "ajv",
  "ajv-formats",
  "pg",
  "@electric-sql/pglite",
  "@scalar/openapi-upgrader",
  "handlebars",
];

/**
 * import() of a package or of a user's file (a compiled server, the project's prettier) goes
 * through the bin's own import(), `__codegenImport`: a script compiled by vm.Script has none (and
 * Node 20 drops vm's importModuleDynamically for functions compiled from a code cache). Only real
 * import calls, found by TypeScript's parser: a textual rewrite also changed `import(` inside
 * strings (init's templates). Relative ones are left to esbuild, which bundles them lazily.
 */
function importCalls(text, file) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const starts = [];
  const visit = (node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [specifier] = node.arguments;
      if (!(specifier && ts.isStringLiteral(specifier) && /^\.{1,2}\//.test(specifier.text))) starts.push(node.expression.getStart(source));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  let result = text;
  for (const start of starts.reverse()) result = `${result.slice(0, start)}__codegenImport${result.slice(start + "import".length)}`;
  return result;
}

/** Each module keeps its own import.meta.url (paths to templates/ and dist/ are relative to it). */
const ownUrl = {
  name: "own-import-meta-url",
  setup(context) {
    context.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, async ({ path: file }) => {
      const { readFile } = await import("node:fs/promises");
      const relative = path.relative(dist, file).split(path.sep).join("/");
      const url = `require("node:url").pathToFileURL(require("node:path").join(__dirname, ${JSON.stringify(relative)})).href`;
      const contents = importCalls((await readFile(file, "utf8")).replaceAll("import.meta.url", url), file);
      return { contents, loader: "js" };
    });
  },
};

await build({
  stdin: { contents: 'export { main } from "./cli.js"; export { nodeHost } from "./host.js";', resolveDir: dist, sourcefile: "codegen-entry.js" },
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  outfile: path.join(dist, "codegen.cjs"),
  external: EXTERNAL,
  plugins: [ownUrl],
  logLevel: "warning",
});

// The code cache: compiled during a generate of the blog fixture, written at its exit. Why the
// old cache goes first: V8 takes a cache for any source of the same length (its check is the
// length, not the text), so after an edit that keeps the bundle's length (`128` to `512`) the
// warm-up ran, and wrote again, the old code.
rmSync(path.join(root, "dist/codegen.cjs.cache"), { force: true });
const out = mkdtempSync(path.join(tmpdir(), "codegen-warm-"));
try {
  const warm = spawnSync(
    process.execPath,
    [path.join(root, "bin/codegen.js"), "generate", path.join(root, "fixtures/valid/blog/declaration.yaml"), "-o", path.join(out, "g"), "--quiet"],
    {
      env: { ...process.env, CODEGEN_WRITE_CODE_CACHE: "1" },
      stdio: "inherit",
    },
  );
  if (warm.status !== 0) throw new Error(`the warm-up run failed (${warm.status ?? warm.signal})`);
} finally {
  rmSync(out, { recursive: true, force: true });
}

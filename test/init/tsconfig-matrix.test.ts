// Generated code lands in projects whose tsconfig is their own: it must compile under every
// common strict setup, not only under the options of test/support/tsconfig.generated.json. Every
// golden tree, a project made by `codegen init` and the output of a document without component
// schemas are type-checked under each configuration below, on TypeScript 5 and 6, with zero
// errors. One program per configuration and version, through the compiler API (no process per run).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import ts6 from "typescript";
import ts5Module from "typescript5";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { nodeHost } from "../../src/host.js";
import { projectFiles } from "../../src/init/init.js";
import { fixtureCases, ROOT } from "../support/fixtures.js";
import { type Ts, tsFilesUnder, typeCheck } from "../support/type-check.js";

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

/** `codegen generate input -o out` in-process, on real files; throws with its output when it fails. */
async function generate(input: string, out: string): Promise<void> {
  let output = "";
  const host = { ...nodeHost(), cwd: path.dirname(input), colour: false, stdout: (t: string) => void (output += t), stderr: (t: string) => void (output += t) };
  const code = await main(["generate", input, "-o", out, "--quiet"], host);
  if (code !== 0) throw new Error(`codegen generate ${input} failed:\n${output}`);
}

let roots: string[] = [];

beforeAll(async () => {
  // A project `codegen init` writes, generated as its `npm run generate` does; its own src
  // (main.ts, handlers) is compiled too. The folder says "type": "module" as init's package.json does.
  const project = path.join(scratch, "init");
  for (const file of projectFiles({ name: "matrix", codegenSpec: "^0.1.0" }, undefined).files) {
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
  // The runtime files are copied into every tree: typeCheck checks them once per program.
  roots = trees.flatMap(tsFilesUnder);
}, 120_000);

/** tsc's errors for the trees under `raw` options, one line each (test/support/type-check.ts). */
function compileErrors(ts: Ts, raw: Record<string, unknown>): string[] {
  // Why types: TypeScript 6 includes no @types package unless it is named; skipLibCheck: the generated code is what is checked.
  return typeCheck(roots, { ...raw, target: "ES2022", types: ["node"], typeRoots: [path.join(ROOT, "node_modules/@types")], skipLibCheck: true }, ts);
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

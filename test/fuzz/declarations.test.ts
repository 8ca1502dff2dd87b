// Random valid declarations expand, verify and render without a diagnostic
// (a sample of them compiles under tsc --strict); random mutations of the valid fixtures give
// diagnostics with places, or valid output, and never an internal error or an exception.
// Bounded here; `node scripts/fuzz.js` runs the same properties longer (FUZZ_SCALE, FUZZ_SEED).

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { formatDiagnostics } from "../../src/diagnostics/format.js";
import { generateFiles } from "../../src/pipeline.js";
import type { GeneratedFile } from "../../src/emit/render.js";
import { ROOT, declarationOf, fixtureCases } from "../support/fixtures.js";
import { compileTrees } from "../support/generated-code.js";

/** Scale of the runs: 1 in npm test; scripts/fuzz.js raises it. */
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
/**
 * The seed: FUZZ_SEED when given (to replay a failure); in CI a fixed one, so a landing never
 * depends on luck (locally and in scripts/fuzz.js every run explores new values).
 */
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : process.env.CI ? 20261122 : undefined;
/** fast-check's parameters: `numRuns`, and the seed when one is given (to replay a failure). */
const runs = (numRuns: number): { numRuns: number; seed?: number } => (SEED === undefined ? { numRuns } : { numRuns, seed: SEED });
const host = { cwd: ROOT };
const dir = mkdtempSync(path.join(tmpdir(), "codegen-fuzz-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Json = { [key: string]: unknown };

/** Texts that must end up inert wherever they land (descriptions, enum values, examples). */
const HOSTILE = ["*/", "`${x}`", "'\"", "\u2028", "</script>", "\\", "${process.exit(1)}", "\n// x", "#{x}", "{{x}}"];
const text = fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ maxLength: 12 }));
const RESOURCES = ["books", "authors", "orders", "notes", "shelves", "people", "categories", "boxes"];
const fieldName = fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,8}$/).filter((n) => !["id", "links", "status"].includes(n));

const scalar = fc.oneof(
  fc.constant<Json>({ type: "string" }),
  fc.record({ type: fc.constant("string"), minLength: fc.integer({ min: 0, max: 3 }), maxLength: fc.integer({ min: 4, max: 50 }) }),
  fc.constantFrom<Json>(
    { type: "string", format: "email" },
    { type: "string", format: "date" },
    { type: "string", format: "date-time" },
    { type: "string", format: "uri" },
    { type: "string", format: "uuid" },
  ),
  fc.record({
    type: fc.constant("string"),
    enum: fc.uniqueArray(
      text.filter((t) => t !== ""),
      { minLength: 1, maxLength: 4 },
    ),
  }),
  fc.record({ type: fc.constantFrom("integer", "number"), minimum: fc.integer({ min: -5, max: 0 }), maximum: fc.integer({ min: 1, max: 100 }) }),
  fc.constant<Json>({ type: "boolean" }),
  fc.constant<Json>({ type: "string", pattern: "^[a-z]*$" }),
);

const field: fc.Arbitrary<Json> = fc
  .tuple(
    fc.oneof(
      { weight: 4, arbitrary: scalar },
      { weight: 1, arbitrary: fc.constantFrom<Json>({ type: "array", items: { type: "string" } }, { type: "array", items: { type: "integer" }, maxItems: 3 }) },
      { weight: 1, arbitrary: fc.dictionary(fieldName, scalar, { minKeys: 1, maxKeys: 3 }).map((fields) => ({ type: "object", fields })) },
    ),
    fc.record({ required: fc.boolean(), nullable: fc.boolean(), description: text }, { requiredKeys: [] }),
  )
  .map(([shape, extra]) => ({ ...shape, ...extra }));

const resource = fc.record(
  {
    id: fc.constantFrom("integer", "uuid", "string"),
    description: text,
    fields: fc.dictionary(fieldName, field, { minKeys: 1, maxKeys: 4 }),
    operations: fc.subarray(["list", "get", "create", "replace", "update", "delete"], { minLength: 1 }),
  },
  { requiredKeys: ["fields"] },
);

/** A random valid declaration: resources of random fields, with or without a password guard. */
const declaration = fc
  .record({
    names: fc.subarray(RESOURCES, { minLength: 1, maxLength: 3 }),
    resources: fc.array(resource, { minLength: 3, maxLength: 3 }),
    auth: fc.boolean(),
    title: text.filter((t) => t.trim() !== "" && t.trim() === t),
    scope: fc.constantFrom("things:write", "it's:`tick`:${x}", "a/b", "write"),
  })
  .map(({ names, resources, auth, title, scope }) => {
    const value: Json = { codegen: 1, info: { title, version: "1.0.0" } };
    if (auth) value.auth = [{ guard: "password", tokenUrl: "/token", scopes: { [scope]: "Write" } }];
    value.resources = Object.fromEntries(names.map((name, i) => [name, auth ? { ...resources[i], access: { read: "public", write: [scope] } } : resources[i]]));
    return value;
  });

/** Internal errors are codegen's bugs: none may appear, whatever the input. */
function expectNoInternalError(diagnostics: readonly { code: string; message: string }[]): void {
  for (const d of diagnostics) expect(d.code, d.message).not.toMatch(/^internal\//);
}

const written: GeneratedFile[][] = [];

describe("random valid declarations", () => {
  it(
    "expand, verify and render without a diagnostic, into paths inside the output folder",
    async () => {
      await fc.assert(
        fc.asyncProperty(declaration, async (value) => {
          const yaml = stringify(value);
          const result = await generateFiles(host, "api.yaml", yaml, { outDir: "generated", format: false, selfCheck: true });
          expect(
            result.diagnostics.map((d) => `${d.code}: ${d.message}`),
            yaml,
          ).toEqual([]);
          for (const file of result.value!)
            expect(file.path).toMatch(
              /(?:^(?:(?:resources|runtime)\/)?[a-z0-9][a-z0-9.-]*\.(?:gen\.ts|yaml)$)|(?:^migrations\/(?:[0-9]{4}_[a-z0-9_]+\.sql|schema\.json)$)/,
            );
          if (written.length < 3) written.push(result.value!);
        }),
        runs(20 * SCALE),
      );
    },
    60_000 * SCALE,
  );

  it("a sample compiles under tsc --strict", () => {
    expect(written.length).toBeGreaterThan(0);
    compileTrees(written, dir);
  }, 60_000);

  it("a resource offering only list, get and create compiles (no unused import of its stored type)", async () => {
    const yaml = stringify({
      codegen: 1,
      info: { title: "T", version: "1" },
      resources: { notes: { fields: { text: "string" }, operations: ["list", "get", "create"] } },
    });
    const result = await generateFiles(host, "api.yaml", yaml, { outDir: "generated", format: false, selfCheck: true });
    compileTrees([result.value!], dir, "read-and-create-only");
  }, 60_000);
});

/** The valid fixtures' declarations: the seeds of the mutations. */
const seeds = fixtureCases("valid").map((name) => {
  const file = declarationOf("valid", name);
  return { file, text: readFileSync(path.join(ROOT, file), "utf8") };
});

/** A mutation of a declaration's text: characters, lines or indentation changed. */
const textMutation = fc.oneof(
  fc.tuple(fc.nat(), fc.nat({ max: 20 })).map(
    ([at, n]) =>
      (t: string) =>
        t.slice(0, at % (t.length + 1)) + t.slice((at % (t.length + 1)) + n),
  ),
  fc
    .tuple(
      fc.nat(),
      fc.oneof(
        fc.constantFrom(...HOSTILE, ":", "- ", "{", "[", "&a ", "*a", "!!binary ", "? ", "\t", "\u0000", "\ufeff", "'", '"', "#"),
        fc.string({ maxLength: 6 }),
      ),
    )
    .map(([at, insert]) => (t: string) => {
      const i = at % (t.length + 1);
      return t.slice(0, i) + insert + t.slice(i);
    }),
  fc.tuple(fc.nat(), fc.nat()).map(([a, b]) => (t: string) => {
    const lines = t.split("\n");
    const [i, j] = [a % lines.length, b % lines.length];
    [lines[i], lines[j]] = [lines[j]!, lines[i]!];
    return lines.join("\n");
  }),
  fc.tuple(fc.nat(), fc.constantFrom("  ", "", " ")).map(([a, indent]) => (t: string) => {
    const lines = t.split("\n");
    const i = a % lines.length;
    lines[i] = indent + lines[i]!.trimStart();
    return lines.join("\n");
  }),
);

/** A mutation of a declaration's data: a value replaced, a key removed or added, somewhere. */
const dataMutation = fc
  .tuple(
    fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
    fc.constantFrom("replace", "delete", "add"),
    fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(...HOSTILE)),
    fc.oneof(
      fc.constantFrom("__proto__", "constructor", "x-a", "type", "fields", "required", "ref", "filter", "enum", "default", "status", "links"),
      fieldName,
    ),
  )
  .map(([steps, action, replacement, key]) => (data: unknown): unknown => {
    const root = structuredClone(data);
    let node: unknown = root;
    for (const step of steps) {
      if (typeof node !== "object" || node === null) break;
      const keys = Object.keys(node);
      if (keys.length === 0) break;
      const k = keys[step % keys.length]!;
      const child = (node as Json)[k];
      if (typeof child !== "object" || child === null || step % 3 === 0) {
        if (action === "delete") delete (node as Json)[k];
        else if (action === "replace") (node as Json)[k] = replacement;
        else Object.defineProperty(node, key, { value: replacement, enumerable: true, writable: true, configurable: true });
        return root;
      }
      node = child;
    }
    return root;
  });

describe("random mutations of the valid declarations", () => {
  const check = async (file: string, mutated: string): Promise<void> => {
    let result;
    try {
      result = await generateFiles(host, file, mutated, { outDir: "generated", format: false, selfCheck: true });
    } catch (error) {
      throw new Error(`generate threw on:\n${mutated}\n${String((error as Error).stack)}`);
    }
    expectNoInternalError(result.diagnostics);
    if (result.value) return;
    expect(result.diagnostics.length, mutated).toBeGreaterThan(0);
    for (const d of result.diagnostics) expect(d.location, `${d.code}: ${d.message}`).toBeDefined();
    // The report renders too, with file:line:column and no stack trace.
    const report = formatDiagnostics(result.diagnostics, { sources: new Map([[file, mutated]]), colour: false });
    expect(report).toMatch(/^[^\n]+:\d+:\d+: error: /);
  };

  it(
    "text mutations: diagnostics or valid output, never an internal error or an exception",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...seeds), fc.array(textMutation, { minLength: 1, maxLength: 3 }), async (seed, mutations) => {
          await check(
            seed.file,
            mutations.reduce((t, m) => m(t), seed.text),
          );
        }),
        runs(60 * SCALE),
      );
    },
    60_000 * SCALE,
  );

  it(
    "data mutations: diagnostics or valid output, never an internal error or an exception",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...seeds), dataMutation, async (seed, mutate) => {
          const data = parse(seed.text) as unknown;
          const file = seed.file.replace(/\.json$/, ".yaml");
          await check(file, stringify(mutate(data)));
        }),
        runs(60 * SCALE),
      );
    },
    60_000 * SCALE,
  );
});

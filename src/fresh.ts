/**
 * What a generation into a folder is keyed by, and the check that a folder is already current,
 * made without the pipeline (issues 6 and 14: regeneration with nothing changed should cost little).
 * Why a module of its own: `codegen generate` asks it first and loads the stages (YAML, validation,
 * expansion, the model, the renderer: most of a run's start-up) only when the folder is not
 * current. So it imports nothing but Node and the folder's reader (src/write).
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Host } from "./host.js";
import type { TemplateSources } from "./render/render.js";
import type { FolderOptions } from "./run.js";
import { outputFolder, readCurrent, recover } from "./write/apply.js";
import { type CurrentTree, hashOf, isAsWritten } from "./write/plan.js";

/** The package's own templates folder (beside `dist/` or `src/`). */
const TEMPLATES = fileURLToPath(new URL("../templates/", import.meta.url));
let templateSources: TemplateSources | undefined;

/** Read the templates once per process: every `.hbs` file and every runtime file. */
export function loadTemplateSources(): TemplateSources {
  if (!templateSources) {
    const read = (dir: string, suffix: string) =>
      Object.fromEntries(
        readdirSync(dir)
          .filter((name) => name.endsWith(suffix))
          .sort()
          .map((name) => [name, readFileSync(path.join(dir, name), "utf8")]),
      );
    templateSources = {
      templates: read(TEMPLATES, ".hbs"),
      perResource: read(path.join(TEMPLATES, "resources"), ".hbs"),
      perOperationGroup: read(path.join(TEMPLATES, "operations"), ".hbs"),
      runtime: read(path.join(TEMPLATES, "runtime"), ".gen.ts"),
    };
  }
  return templateSources;
}

let codeFingerprint: string | undefined;

/**
 * A hash of what, besides the input, decides the generated files: codegen's own code (the
 * folder this module is in), its templates and prettier's version. Computed once per process.
 */
export function fingerprintOfCode(): string {
  if (codeFingerprint === undefined) {
    const hash = createHash("sha256");
    const here = path.dirname(fileURLToPath(import.meta.url));
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        const child = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(child);
        // Why not the `.d.ts` files the build writes beside the code: types decide no output (half the files to read).
        else if (/\.(c?js|ts)$/.test(entry.name) && !entry.name.endsWith(".d.ts"))
          hash
            .update(`${path.relative(here, child)}\0`)
            .update(readFileSync(child))
            .update("\0");
      }
    };
    walk(here);
    hash.update(JSON.stringify(loadTemplateSources()));
    hash.update((createRequire(import.meta.url)("prettier/package.json") as { version: string }).version);
    codeFingerprint = hash.digest("hex");
  }
  return codeFingerprint;
}

/** The header names the input relative to the output folder, `/`-separated on every system. */
export function inputPathOf(cwd: string, file: string, outDir: string): string {
  return path.relative(path.resolve(cwd, outDir), path.resolve(cwd, file)).split(path.sep).join("/");
}

/**
 * Whether the output folder (`dir`, as `outputFolder` gives it) is the working folder, the
 * input's, or one that holds them: a run swaps the whole folder, so it must be one of its own.
 * Compared as real paths: a link named as the output folder may point at the project.
 */
export function isUnsafeFolder(cwd: string, file: string, dir: string): boolean {
  const inside = (child: string, parent: string) => child === parent || child.startsWith(parent + path.sep);
  return inside(outputFolder(cwd), dir) || inside(outputFolder(path.resolve(cwd, file)), dir);
}

/**
 * The key of a generation from a declaration: a hash of its text and of everything else the
 * files depend on (codegen's code, every option that changes the files or what is accepted, the
 * input's path as the headers name it). Why the text and not the expanded document: a declaration
 * refers to no other file, so its text decides everything, and the key is then known before
 * anything is parsed. (An OpenAPI document's `$ref`s may read other files: its key is of the
 * bundled document, src/run.ts.) A run that fails writes no manifest, so a matching key means a
 * run that succeeded.
 */
export function declarationKey(cwd: string, file: string, text: string, options: FolderOptions): string {
  const settings = {
    format: options.format !== false,
    prettier: options.prettier === true,
    openapiVersion: options.openapiVersion ?? "3.1",
    allowUnsafePatterns: options.allowUnsafePatterns === true,
    strict: options.strict === true,
    inputPath: inputPathOf(cwd, file, options.outDir),
  };
  // "declaration": a key of this kind never equals one of a document (src/run.ts, generationKey).
  return hashOf(`declaration\n${fingerprintOfCode()}\n${JSON.stringify(settings)}\n${text}`);
}

/** Whether every file a manifest lists is in the folder, as a plain file, matching the hash the manifest gives it. */
export function isIntact(current: CurrentTree): boolean {
  return [...current.manifest.files.keys()].every((file) => {
    const found = current.look(file);
    return found.kind === "file" && isAsWritten(current.manifest, file, found.text);
  });
}

/**
 * The number of files in the output folder when it is current for a declaration's `text` (its
 * manifest holds this run's `declarationKey` and every file it lists stands as written): the run
 * would write the same bytes. Undefined when it is not (or with `check`, or an unsafe folder): the
 * full run decides. A run that a kill interrupted is put right first (`recover`), as a full run does.
 */
export function currentFiles(host: Pick<Host, "cwd">, file: string, text: string, options: FolderOptions): number | undefined {
  // Why not with --check: the manifest is input (anyone can commit one); --check compares bytes.
  // Why not with --prettier: the files then depend on the project's prettier and its config too,
  // which the key does not hold (an edited .prettierrc must format the files again).
  if (options.check || options.prettier === true) return undefined;
  const dir = outputFolder(path.resolve(host.cwd, options.outDir));
  if (isUnsafeFolder(host.cwd, file, dir)) return undefined;
  const before = readCurrent(dir);
  if (before.manifest.input !== declarationKey(host.cwd, file, text, options) || !isIntact(before)) return undefined;
  recover(dir);
  return before.manifest.files.size;
}

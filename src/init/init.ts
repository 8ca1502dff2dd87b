import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { declarationJsonSchema } from "../compile/declaration/schema.js";
import { type Diagnostic, diagnostic } from "../diagnostics/index.js";
import { type Host, TargetRefused } from "../host.js";
import { isObject, objectOf } from "../model/json.js";
import { type ApiOutline, demoUser, handlerSource, initText, mainSource, outlineOf } from "./scaffold.js";

/** What `codegen init` needs to know: the new package's name and the codegen-rest-ts version spec it depends on. */
export interface InitOptions {
  /** The npm name of the new project (see `projectName`). */
  readonly name: string;
  /** The devDependency spec of codegen-rest-ts: `^0.1.0`, or `file:...` for a packed tarball. */
  readonly codegenSpec: string;
}

/** One file of the new project, its path relative to the project folder (`/`-separated). */
export interface InitFile {
  readonly path: string;
  readonly contents: string;
  /** What it imports from other files of the project: written only where each of them will export it. */
  readonly needs?: readonly { readonly file: string; readonly names: readonly string[] }[];
}

/** A file init does not write, and why (a sentence). */
export interface Skipped {
  readonly path: string;
  readonly reason: string;
}

/** An npm package name for a project folder: its base name, lower-cased, other characters as `-`. */
export function projectName(dir: string): string {
  const name = path
    .basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[._-]+|[._-]+$/g, "");
  // Why: npm names are at most 214 characters and may not start with `.` or `_`.
  return name.slice(0, 214) || "api";
}

/** The declaration of the project, where init finds it and writes its example. */
const DECLARATION = "api.yaml";

/**
 * The files of the project for the declaration that stands in the folder, in the order they are
 * written and listed, and those init does not write with why. Pure. `existing`: api.yaml's text,
 * undefined when there is none (init writes its example), null when what stands there is no
 * regular file. Why from the declaration there: a project whose api.yaml the user has made their
 * own needs a server and handlers for its resources, not the example's (which would not compile
 * against the code generated from it).
 */
export function projectFiles(options: InitOptions, existing: string | null | undefined): { files: InitFile[]; skipped: Skipped[] } {
  // JSON strings are YAML double-quoted scalars: any project name is safe in the title.
  const example = initText("api.yaml", { title: JSON.stringify(`${options.name} API`) });
  const isExample = existing === undefined || existing === example;
  const outline = existing === null ? `${DECLARATION} is not a regular file init reads` : outlineOf(DECLARATION, isExample ? example : existing);
  if (isExample && typeof outline === "string") throw new Error(`init's example declaration is refused: ${outline}`);
  const skipped: Skipped[] = [];
  const files: InitFile[] = [
    { path: "package.json", contents: packageJson(options, typeof outline === "string" ? undefined : outline) },
    { path: "tsconfig.json", contents: initText("tsconfig.json") },
    { path: ".gitignore", contents: initText("gitignore") },
    { path: ".prettierignore", contents: PRETTIERIGNORE },
  ];
  if (isExample) files.push({ path: "README.md", contents: initText("README.md", { name: options.name }) });
  else skipped.push({ path: "README.md", reason: `it describes init's example API, and ${DECLARATION} is your own` });
  files.push({ path: DECLARATION, contents: example }, { path: "codegen.schema.json", contents: json(declarationJsonSchema()) });
  const why = typeof outline === "string" ? outline : outline.resources.length === 0 ? `${DECLARATION} declares no resources to write handlers for` : undefined;
  if (typeof outline === "string" || why !== undefined) {
    skipped.push({ path: "src/main.ts", reason: why! }, { path: "src/handlers/", reason: why! });
    return { files, skipped };
  }
  const handlerFile = (fileName: string) => `src/handlers/${fileName}.ts`;
  const resources = outline.resources.filter((r) => {
    // Why: the store's own file holds the store, not a resource's handlers.
    if (handlerFile(r.fileName) !== STORE) return true;
    skipped.push({ path: STORE, reason: `it is the store's file, so the handlers of \`${r.fileName}\` are yours to write` });
    return false;
  });
  if (outline.securityHooks.length > 0)
    skipped.push({ path: "src/main.ts", reason: `${DECLARATION}'s API has security schemes without a guard: its server needs your securityHooks` });
  else
    files.push({
      path: "src/main.ts",
      contents: mainSource(outline),
      needs: [...outline.resources.map((r) => ({ file: handlerFile(r.fileName), names: [r.property] })), { file: STORE, names: ["closeStore", "storeReady"] }],
    });
  files.push({ path: STORE, contents: initText("store.ts") });
  for (const resource of resources) {
    // The example's tasks show a method of your own; any other resource starts from the store's.
    const contents = isExample && resource.fileName === "tasks" ? initText("tasks.ts") : handlerSource(resource);
    files.push({ path: handlerFile(resource.fileName), contents, needs: [{ file: STORE, names: ["store"] }] });
  }
  return { files, skipped };
}

/** The store's file, which every handler file imports. */
const STORE = "src/handlers/store.ts";

/** What `initProject` did: files written, files kept as they were, and what it merged or could not. */
export interface InitOutcome {
  readonly written: string[];
  /** Files that exist already and are left as they are (init overwrites nothing). */
  readonly kept: string[];
  /** Files init does not write, with why: the declaration there is not init's example, or a file one would import does not export it. */
  readonly skipped: Skipped[];
  /** What was added to files that exist (`package.json: scripts.dev`, `.prettierignore: src/generated/`). */
  readonly merged: string[];
  /** Entries of an existing package.json that differ from what init would write, left as they are. */
  readonly conflicts: { readonly key: string; readonly theirs: unknown; readonly ours: unknown }[];
  /** Why init stopped: a folder it would write into is a symbolic link leading outside the project (then nothing is written), or a place to write is no regular file. */
  readonly refused?: Diagnostic;
}

/** Whether a module's text exports every one of `names` (a declaration, or an `export { ... }` list). */
function exportsAll(text: string, names: readonly string[]): boolean {
  return names.every((name) => {
    const n = name.replace(/[$]/g, "\\$");
    return new RegExp(`\\bexport\\s+(?:(?:const|let|var|class|function|async\\s+function)\\s+${n}\\b|\\{[^}]*(?<![\\w$])${n}(?![\\w$]))`).test(text);
  });
}

/**
 * Write the project's files into `dir` (relative to the host's folder), or what is missing of them
 * in a folder that holds a project already (cli.md, `init`): a file that exists is kept, except
 * that package.json gets the scripts, dependencies and keys it lacks (`mergePackageJson`) and
 * .prettierignore the generated folder. The server and handlers are those of the api.yaml there
 * (`projectFiles`), and a file is written only where what it imports will be there (`needs`):
 * init leaves no file that does not compile. Throws when package.json is there but is no JSON object.
 */
export async function initProject(host: Host, dir: string, options: InitOptions): Promise<InitOutcome> {
  const root = path.resolve(host.cwd, dir);
  const outcome: InitOutcome = { written: [], kept: [], skipped: [], merged: [], conflicts: [] };
  const planned = projectFiles(options, await existingText(host, path.join(root, DECLARATION)));
  outcome.skipped.push(...planned.skipped);
  // Why before any write: a refused project is left as it was, not half written.
  const outside = await linkOutside(host, root, planned.files);
  if (outside !== undefined)
    return { ...outcome, refused: diagnostic("output/link-outside-project", { path: path.join(dir, outside.folder), to: outside.to }) };
  const found = new Map<string, string | null | undefined>();
  for (const file of planned.files) found.set(file.path, await existingText(host, path.join(root, file.path)));
  // A file to write whose imports will not be there is not written; that may leave another's
  // import unmet (main.ts needs the handler files), hence until nothing more drops out.
  const unmet = new Map<string, string>();
  const toWrite = new Set(planned.files.filter((f) => found.get(f.path) === undefined).map((f) => f.path));
  for (let dropped = true; dropped;) {
    dropped = false;
    for (const file of planned.files) {
      if (!toWrite.has(file.path)) continue;
      for (const need of file.needs ?? []) {
        if (toWrite.has(need.file)) continue;
        const text = found.get(need.file);
        if (typeof text === "string" && exportsAll(text, need.names)) continue;
        const what =
          text === undefined ? "which init does not write" : typeof text === "string" ? "which exists and does not export it" : "which is no regular file";
        unmet.set(file.path, `it would import ${need.names.join(", ")} from ${need.file}, ${what}`);
        toWrite.delete(file.path);
        dropped = true;
        break;
      }
    }
  }
  try {
    for (const file of planned.files) {
      const target = path.join(root, file.path);
      const existing = found.get(file.path);
      if (existing === undefined) {
        if (!toWrite.has(file.path)) {
          outcome.skipped.push({ path: file.path, reason: unmet.get(file.path)! });
          continue;
        }
        await host.writeFile(target, file.contents);
        outcome.written.push(file.path);
      } else if (file.path === "package.json" && existing !== null) {
        const merge = mergePackageJson(existing, file.contents);
        if (merge === undefined) throw new Error(`${path.join(dir, file.path)} is not a JSON object`);
        if (merge.added.length > 0) await host.writeFile(target, merge.text);
        outcome.merged.push(...merge.added.map((key) => `package.json: ${key}`));
        outcome.conflicts.push(...merge.conflicts);
      } else if (file.path === ".prettierignore" && existing !== null && !existing.split(/\r?\n/).includes(GENERATED)) {
        await host.writeFile(target, `${existing}${existing === "" || existing.endsWith("\n") ? "" : "\n"}${GENERATED}\n`);
        outcome.merged.push(`.prettierignore: ${GENERATED}`);
      } else if (file.path !== ".prettierignore") {
        outcome.kept.push(file.path);
      }
    }
  } catch (error) {
    // What stands where init writes is no regular file it may replace (host.writeFile): refused, as a link leading outside is.
    if (!(error instanceof TargetRefused)) throw error;
    return { ...outcome, refused: diagnostic("output/special-target", { path: path.relative(host.cwd, error.file) || ".", what: error.what }) };
  }
  return outcome;
}

/** The folder the project's code is generated into, as ignore files name it. */
const GENERATED = "src/generated/";

/**
 * The first folder of the project (`src`, `src/handlers`, relative to `root`) that init would
 * write into through a symbolic link leading outside the project, with where it leads; undefined
 * when there is none. The project folder itself may be a link: the user named it.
 * Why: a `src` linked to another folder would have init create files there (a checkout, an
 * archive or another user can hold such a link); a link that stays inside the project is harmless.
 */
async function linkOutside(host: Host, root: string, files: readonly InitFile[]): Promise<{ folder: string; to: string } | undefined> {
  const project = await host.realPath(root);
  const folders = new Set(
    files.flatMap((f) =>
      f.path
        .split("/")
        .slice(0, -1)
        .map((_, n, parts) => parts.slice(0, n + 1).join("/")),
    ),
  );
  for (const folder of [...folders].sort()) {
    if ((await host.entryAt(path.join(root, folder))) !== "link") continue;
    const to = await host.realPath(path.join(root, folder));
    if (to !== project && !to.startsWith(project.endsWith(path.sep) ? project : project + path.sep)) return { folder, to };
  }
  return undefined;
}

/**
 * A file's text; undefined when nothing is there, null when something is there that is not a
 * regular text file: a folder, a device, a pipe (never read: it could block), or a symbolic link
 * (never read or written through: init keeps it as it is).
 */
async function existingText(host: Host, file: string): Promise<string | null | undefined> {
  const kind = await host.entryAt(file);
  if (kind !== "file") return kind === "none" ? undefined : null;
  try {
    return await host.readFile(file);
  } catch (error) {
    // Only "no such file" leaves the place free; EISDIR, ENOTDIR, ENOTTEXT and EACCES do not.
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? undefined : null;
  }
}

/** Top-level keys of a package.json that are the user's to choose: never merged, never named. */
const THEIRS = new Set(["name", "version", "private", "description"]);
/** Sections whose entries are added when the package is in neither (any version there is the user's choice). */
const DEPENDENCIES = new Set(["dependencies", "devDependencies"]);
/** Sections merged entry by entry. */
const SECTIONS = ["scripts", "engines"] as const;

/**
 * Merge init's package.json into an existing one. Pure. Adds what is missing: scripts, keys such
 * as `type`, and the dependencies and devDependencies not already in either (any version there is
 * the user's choice). Changes nothing that is there: an entry that differs is a conflict.
 * Keeps the file's key order and indentation. Undefined when `existing` is no JSON object.
 */
export function mergePackageJson(existing: string, ours: string): { text: string; added: string[]; conflicts: InitOutcome["conflicts"][number][] } | undefined {
  let theirs: unknown;
  try {
    theirs = JSON.parse(existing);
  } catch {
    return undefined;
  }
  if (!isObject(theirs)) return undefined;
  const merged = theirs as Record<string, unknown>;
  const wanted = JSON.parse(ours) as Record<string, unknown>;
  const added: string[] = [];
  const conflicts: InitOutcome["conflicts"][number][] = [];
  const section = (key: string): Record<string, unknown> | undefined => {
    const value = merged[key];
    if (value === undefined) return (merged[key] = {}) as Record<string, unknown>;
    return isObject(value) ? (value as Record<string, unknown>) : undefined;
  };
  for (const [key, value] of Object.entries(wanted)) {
    if (THEIRS.has(key)) continue;
    if ((SECTIONS as readonly string[]).includes(key) || DEPENDENCIES.has(key)) {
      const target = section(key);
      const installed = DEPENDENCIES.has(key) ? { ...objectOf(merged.dependencies), ...objectOf(merged.devDependencies) } : target;
      for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
        if (target === undefined) conflicts.push({ key: `${key}.${name}`, theirs: merged[key], ours: entry });
        else if (installed !== undefined && Object.hasOwn(installed, name)) {
          if (!DEPENDENCIES.has(key) && !isDeepStrictEqual(installed[name], entry))
            conflicts.push({ key: `${key}.${name}`, theirs: installed[name], ours: entry });
        } else {
          target[name] = entry;
          added.push(`${key}.${name}`);
        }
      }
    } else if (!Object.hasOwn(merged, key)) {
      merged[key] = value;
      added.push(key);
    } else if (!isDeepStrictEqual(merged[key], value)) conflicts.push({ key, theirs: merged[key], ours: value });
  }
  const indent = /^[ \t]+(?=")/m.exec(existing)?.[0] ?? "  ";
  return { text: JSON.stringify(merged, null, indent) + "\n", added, conflicts };
}

const json = (value: unknown) => JSON.stringify(value, null, 2) + "\n";

function packageJson({ name, codegenSpec }: InitOptions, outline: ApiOutline | undefined): string {
  const dev = `codegen serve api.yaml --watch --user ${demoUser(outline)}`;
  return initText("package.json", { name: JSON.stringify(name), codegenSpec: JSON.stringify(codegenSpec), dev: JSON.stringify(dev) });
}

// Why: formatting the generated code is codegen's; a project's `prettier --write .` leaves it alone
// (codegen would take a reformatted file for unchanged anyway, src/write/plan.ts shapeHashOf).
const PRETTIERIGNORE = `${GENERATED}
`;

import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { declarationJsonSchema } from "../compile/declaration/schema.js";
import { type Diagnostic, diagnostic } from "../diagnostics/index.js";
import { type Host, TargetRefused } from "../host.js";
import { type ApiOutline, demoUser, handlerSource, mainSource, outlineOf } from "./scaffold.js";

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

/** The files of a new project, in the order they are written and listed. Pure. */
export function initFiles(options: InitOptions): InitFile[] {
  return projectFiles(options, undefined).files;
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
  const example = declaration(options.name);
  const isExample = existing === undefined || existing === example;
  const outline = existing === null ? `${DECLARATION} is not a regular file init reads` : outlineOf(DECLARATION, isExample ? example : existing);
  if (isExample && typeof outline === "string") throw new Error(`init's example declaration is refused: ${outline}`);
  const skipped: Skipped[] = [];
  const files: InitFile[] = [
    { path: "package.json", contents: packageJson(options, typeof outline === "string" ? undefined : outline) },
    { path: "tsconfig.json", contents: json(TSCONFIG) },
    { path: ".gitignore", contents: GITIGNORE },
    { path: ".prettierignore", contents: PRETTIERIGNORE },
  ];
  if (isExample) files.push({ path: "README.md", contents: readme(options.name) });
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
  if (outline.hasSecurityHooks)
    skipped.push({ path: "src/main.ts", reason: `${DECLARATION}'s API has security schemes without a guard: its server needs your securityHooks` });
  else
    files.push({
      path: "src/main.ts",
      contents: mainSource(outline),
      needs: [...outline.resources.map((r) => ({ file: handlerFile(r.fileName), names: [r.property] })), { file: STORE, names: ["closeStore", "storeReady"] }],
    });
  files.push({ path: STORE, contents: STORE_HANDLERS });
  for (const resource of resources) {
    // The example's tasks show a method of your own; any other resource starts from the store's.
    const contents = isExample && resource.fileName === "tasks" ? TASKS_HANDLERS : handlerSource(resource);
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
  if (outside !== undefined) throw new LinkOutside(path.join(dir, outside.folder), outside.to);
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
        const text = found.has(need.file) ? found.get(need.file) : await existingText(host, path.join(root, need.file));
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
  return outcome;
}

/** The folder the project's code is generated into, as ignore files name it. */
const GENERATED = "src/generated/";

/** `init` refused: a folder it would write into is a symbolic link to a place outside the project. */
export class LinkOutside extends Error {
  constructor(
    /** The folder, as the user would name it (`my-api/src`). */
    readonly folder: string,
    /** Where the link leads, links resolved. */
    readonly to: string,
  ) {
    super(`${folder} is a symbolic link to ${to}, outside the project; init writes nothing through it`);
  }
}

/** The diagnostic of a refused `init` (`shown`: a path as the user would name it), or undefined for another failure. */
export function initRefusal(error: unknown, shown: (file: string) => string): Diagnostic | undefined {
  if (error instanceof LinkOutside) return diagnostic("output/link-outside-project", { path: error.folder, to: error.to });
  if (error instanceof TargetRefused) return diagnostic("output/special-target", { path: shown(error.file), what: error.what });
  return undefined;
}

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
  if (typeof theirs !== "object" || theirs === null || Array.isArray(theirs)) return undefined;
  const merged = theirs as Record<string, unknown>;
  const wanted = JSON.parse(ours) as Record<string, unknown>;
  const added: string[] = [];
  const conflicts: InitOutcome["conflicts"][number][] = [];
  const section = (key: string): Record<string, unknown> | undefined => {
    const value = merged[key];
    if (value === undefined) return (merged[key] = {}) as Record<string, unknown>;
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  };
  for (const [key, value] of Object.entries(wanted)) {
    if (THEIRS.has(key)) continue;
    if ((SECTIONS as readonly string[]).includes(key) || DEPENDENCIES.has(key)) {
      const target = section(key);
      const installed = DEPENDENCIES.has(key) ? { ...asRecord(merged.dependencies), ...asRecord(merged.devDependencies) } : target;
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

const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

const json = (value: unknown) => JSON.stringify(value, null, 2) + "\n";

function packageJson({ name, codegenSpec }: InitOptions, outline: ApiOutline | undefined): string {
  return json({
    name,
    version: "0.1.0",
    private: true,
    type: "module",
    engines: { node: "^20.19.0 || >=22.12.0" },
    scripts: {
      generate: "codegen api.yaml -o src/generated",
      build: "npm run generate && tsc -p tsconfig.json",
      start: "npm run build && node dist/main.js",
      // Why codegen serve: it regenerates, recompiles and restarts on every change of api.yaml in
      // one process; it answers with the in-memory store and a demo user, not src/main.ts.
      dev: `codegen serve api.yaml --watch --user ${demoUser(outline)}`,
      check: "codegen api.yaml -o src/generated --check && tsc -p tsconfig.json --noEmit",
      // Why a script: migrations are written on request, one per change of the tables (docs/migrations.md).
      "migrate:new": "codegen migrate new api.yaml -o src/generated",
    },
    // Why pg: DATABASE_URL (src/handlers/store.ts) selects the PostgreSQL store, which takes its
    // client from the application; it is loaded only when the variable is set.
    dependencies: { pg: "^8.16.0" },
    devDependencies: {
      "@types/node": "^20",
      "@types/pg": "^8.15.0",
      "codegen-rest-ts": codegenSpec,
      typescript: "6.0.3",
    },
  });
}

/** The options the generated code is promised to compile under (README, "Server code"). */
const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2023"],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    // Why: TypeScript 6 includes no @types packages unless they are named.
    types: ["node"],
    rootDir: "src",
    outDir: "dist",
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noImplicitOverride: true,
    noFallthroughCasesInSwitch: true,
    verbatimModuleSyntax: true,
    erasableSyntaxOnly: true,
    skipLibCheck: true,
  },
  include: ["src"],
};

// Why: formatting the generated code is codegen's; a project's `prettier --write .` leaves it alone
// (codegen would take a reformatted file for unchanged anyway, src/write/plan.ts shapeHashOf).
const PRETTIERIGNORE = `${GENERATED}
`;

// Why: src/generated is not ignored: the generated code is committed, so review shows what a
// declaration change does and CI can run `codegen api.yaml -o src/generated --check`.
const GITIGNORE = `node_modules/
dist/
`;

function declaration(name: string): string {
  // JSON strings are YAML double-quoted scalars: any project name is safe in the title.
  const title = JSON.stringify(`${name} API`);
  return `# yaml-language-server: $schema=./codegen.schema.json
# The API of this project. \`npm run generate\` expands it into src/generated/openapi.yaml and
# the server code there; the format is described in the README of codegen-rest-ts.
codegen: 1
info:
  title: ${title}
  version: 0.1.0
  description: Projects and the tasks in them.
auth:
  - guard: password               # OAuth2 password flow: POST /token with a user name and password
    tokenUrl: /token              # a path: this API serves the token endpoint (issueToken in src/main.ts)
    scopes:
      projects:write: Create and change projects
      tasks:write: Create and change tasks
resources:
  projects:
    fields:
      name: { type: string, required: true, minLength: 1, maxLength: 100 }
      description: { type: string, maxLength: 2000 }
    access:
      read: public                # anyone may list and read projects
      write: [projects:write]
  tasks:
    fields:
      title: { type: string, required: true, minLength: 1, maxLength: 200 }
      projectId: { type: integer, ref: projects, required: true, filter: true }   # GET /tasks?projectId=1
      due: { type: string, format: date }
      tags: string[]
    status:                       # a state machine: PATCH {"status": "done"} moves a task
      values: [todo, doing, done]
      initial: todo
      transitions:
        todo: [doing, done]
        doing: [todo, done]
        done: [todo]
    access:
      read: authenticated         # any valid token
      write: [tasks:write]
`;
}

const STORE_HANDLERS = `// The store the resource handlers start from, chosen by one setting: without DATABASE_URL,
// the in-memory store codegen generates (the data kept until the process ends); with
// DATABASE_URL=postgres://user:password@host:5432/db, codegen's PostgreSQL store through \`pg\`,
// its tables brought up to date (src/generated/migrations) before the server starts.
import { createMemoryHandlers, createPostgresStore, migrate } from "../generated/index.gen.js";

/** The store's readiness check (\`/readyz\`) and its end (after a graceful shutdown); nothing to do in memory. */
export let storeReady = async (): Promise<void> => {};
export let closeStore = async (): Promise<void> => {};

/** The store's handlers, shared by the resource handlers that still use them. */
export const store = process.env.DATABASE_URL ? await postgresStore(process.env.DATABASE_URL) : createMemoryHandlers();

async function postgresStore(url: string): Promise<ReturnType<typeof createPostgresStore>> {
  // Why a dynamic import: pg is loaded only when a database is configured.
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString: url });
  // Why one client: the migrations run in transactions, which need one connection.
  const client = await pool.connect();
  try {
    const applied = await migrate({ query: (text, params) => client.query(text, params) });
    for (const name of applied) console.log(\`applied migration \${name}\`);
  } finally {
    client.release();
  }
  // Why the pool itself: the store then handles a dropped idle connection (a database restart)
  // itself, answers 503 while the database is away, and bounds the queue of waiting queries.
  storeReady = async () => void (await pool.query("SELECT 1"));
  closeStore = () => pool.end();
  return createPostgresStore({ pool });
}
`;

const TASKS_HANDLERS = `import { type TasksHandlers, isRefusal } from "../generated/index.gen.js";
import { store } from "./store.js";

/**
 * The operations on \`tasks\`: the store's (./store.ts), with createTask as an example of your own
 * method. Replace the others the same way; TasksHandlers in ../generated/handlers.gen.ts says what
 * each one receives and returns.
 */
export const tasks: TasksHandlers = {
  ...store.tasks,
  createTask: async (request) => {
    // The body is validated and typed; \`principal\` is the verified caller (tasks:write).
    const task = await store.tasks.createTask(request);
    // A refusal (its project deleted meanwhile: 409) is answered as it is.
    if (isRefusal(task)) return task;
    console.log(\`\${request.principal.subject} created task \${task.id} in project \${task.projectId}\`);
    return task;
  },
};
`;

function readme(name: string): string {
  return `# ${name}

A REST API generated with [codegen-rest-ts](https://www.npmjs.com/package/codegen-rest-ts).

\`\`\`sh
npm install
npm run dev        # serves api.yaml (in-memory store, demo user); regenerates and restarts on every edit
npm start          # generates src/generated, compiles, serves src/main.ts on http://127.0.0.1:8080 (PORT to change)
DATABASE_URL=postgres://user:password@localhost:5432/app npm start   # the same, the data kept in PostgreSQL
npm run check      # fails when src/generated is stale or the code does not type-check (for CI)
\`\`\`

| file | what it is |
|---|---|
| \`api.yaml\` | the declaration: resources, fields, guards, access rules. Edit it, then \`npm run generate\` |
| \`src/generated/\` | generated from api.yaml: the OpenAPI document and the server code. Never edit; commit it |
| \`src/main.ts\` | the server: your handlers, token check and token endpoint (a demo user to replace); it logs one line per request (delete its \`onResponse\` to turn that off) |
| \`src/handlers/\` | one file per resource, using the store (\`store.ts\`) until you replace its methods |
| \`codegen.schema.json\` | the JSON Schema of api.yaml, for completion in editors |

Try it (the demo user is \`demo\` / \`demo-password\`):

\`\`\`sh
TOKEN=$(curl -s -X POST http://127.0.0.1:8080/token -d 'username=demo&password=demo-password&scope=projects:write+tasks:write' | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).access_token')
curl -s -X POST http://127.0.0.1:8080/projects -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"name": "Launch"}'
curl -s -X POST http://127.0.0.1:8080/tasks -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"title": "Write the docs", "projectId": 1}'
curl -s "http://127.0.0.1:8080/tasks?projectId=1" -H "Authorization: Bearer $TOKEN"
\`\`\`

## The store

\`src/handlers/store.ts\` picks the store by one setting, the environment variable \`DATABASE_URL\`:
unset, the objects are kept in memory until the server stops; a \`postgres://\` URL keeps them in
that PostgreSQL database through \`pg\`. At start the server then creates or updates the tables
(the migrations \`npm run migrate:new -- NAME\` writes into \`src/generated/migrations/\`, one per
run, each applied once and recorded in the table \`_codegen_migrations\`; write the first,
\`npm run migrate:new -- initial\`, before the first start on PostgreSQL, and one after each change
of the fields that \`npm run check\` names). Several servers on one database are one API once
they share their tokens and list cursors: the demo tokens of \`src/main.ts\` live in one process,
so sign tokens with \`issueJwt\` and check them with \`verifyJwt\` under one key, and give
\`createServer\` the same \`cursorKey\` on each (codegen-rest-ts's README, "JWT guards"). A migration never drops data: a
dropped field's \`DROP COLUMN\` is written commented out (run it by hand when you mean it), and a
renamed field keeps its data when it says \`renamedFrom: oldName\`.

In CI, \`npx codegen api.yaml -o src/generated --check\` fails when the committed generated code
is not what api.yaml gives.
`;
}

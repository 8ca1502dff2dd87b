import path from "node:path";
import { declarationJsonSchema } from "../declaration/schema.js";
import type { Host } from "../host.js";

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
  return [
    { path: "package.json", contents: packageJson(options) },
    { path: "tsconfig.json", contents: json(TSCONFIG) },
    { path: ".gitignore", contents: GITIGNORE },
    { path: "README.md", contents: readme(options.name) },
    { path: "api.yaml", contents: declaration(options.name) },
    { path: "codegen.schema.json", contents: json(declarationJsonSchema()) },
    { path: "src/main.ts", contents: MAIN },
    { path: "src/handlers/memory.ts", contents: MEMORY_HANDLERS },
    { path: "src/handlers/projects.ts", contents: PROJECTS_HANDLERS },
    { path: "src/handlers/tasks.ts", contents: TASKS_HANDLERS },
  ];
}

/**
 * Write the project's files into `dir` (relative to the host's folder). Refuses, writing
 * nothing, when any of them exists already: init never overwrites (cli.md, `init`).
 * Answers the files written or refused, as `initFiles` names them.
 */
export async function initProject(host: Host, dir: string, options: InitOptions): Promise<{ written: string[] } | { refused: string[] }> {
  const root = path.resolve(host.cwd, dir);
  const files = initFiles(options);
  const refused: string[] = [];
  for (const file of files) {
    if (await occupied(host, path.join(root, file.path))) refused.push(file.path);
  }
  if (refused.length > 0) return { refused };
  for (const file of files) await host.writeFile(path.join(root, file.path), file.contents);
  return { written: files.map((file) => file.path) };
}

/** Whether something stands where a file would be written: a file, a folder, or a file in place of a parent folder. */
async function occupied(host: Host, file: string): Promise<boolean> {
  try {
    await host.readFile(file);
    return true;
  } catch (error) {
    // Only "no such file" leaves the place free; EISDIR, ENOTDIR, ENOTTEXT and EACCES do not.
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
}

const json = (value: unknown) => JSON.stringify(value, null, 2) + "\n";

function packageJson({ name, codegenSpec }: InitOptions): string {
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
    },
    devDependencies: {
      "@types/node": "^20",
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

const MAIN = `// The server: the generated API (src/generated, written by \`npm run generate\`) with your
// handlers and your token check. This file is yours; codegen never writes it.
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { createServer } from "./generated/index.gen.js";
import type { Principal } from "./generated/index.gen.js";
import { projects } from "./handlers/projects.js";
import { tasks } from "./handlers/tasks.js";

// DEMO ONLY, REPLACE BEFORE USE: one hard-coded user holding every scope, and tokens kept in
// memory. Check users against your user store and issue real tokens (or verify the tokens of
// your identity provider in verifyToken).
const demoUser = { username: "demo", password: "demo-password", scopes: ["projects:write", "tasks:write"] };
const sessions = new Map<string, Principal>();

const server = createServer({
  handlers: { projects, tasks },
  // Called with the bearer token: the principal with the scopes it grants, or undefined (401).
  // The server then checks the operation's scopes itself (403 when one is missing).
  verifyToken: (token) => sessions.get(token),
  // POST /token (the password guard's tokenUrl): a token, or an RFC 6749 error.
  issueToken: ({ username, password, scopes }) => {
    if (username !== demoUser.username || password !== demoUser.password) return { error: "invalid_grant" };
    if (!scopes.every((scope) => demoUser.scopes.includes(scope))) return { error: "invalid_scope" };
    const token = randomBytes(32).toString("base64url");
    sessions.set(token, { subject: username, scopes });
    return { access_token: token, token_type: "bearer", scope: scopes.join(" ") };
  },
  onError: (error) => console.error(error),
});

const port = Number(process.env.PORT ?? 8080);
server.listen(port, "127.0.0.1", () => {
  const { address, port: bound } = server.address() as AddressInfo;
  console.log(\`listening on http://\${address}:\${bound}\`);
});
`;

const MEMORY_HANDLERS = `// The in-memory store codegen generates: every operation of every resource, the data kept
// until the process ends. The resource handlers start from it.
import { createMemoryHandlers } from "../generated/index.gen.js";

/** One in-memory store, shared by the handlers that still use it. */
export const memory = createMemoryHandlers();
`;

const PROJECTS_HANDLERS = `import type { ProjectsHandlers } from "../generated/index.gen.js";
import { memory } from "./memory.js";

/**
 * The operations on \`projects\`: the in-memory store's for now. Replace them one method at a time
 * (listProjects, getProject, createProject, replaceProject, updateProject, deleteProject) with
 * your own, e.g. over a database; ProjectsHandlers in ../generated/handlers.gen.ts says what each
 * one receives and returns. The generated server has already checked the token, the scopes and
 * the request before calling them.
 */
export const projects: ProjectsHandlers = {
  ...memory.projects,
};
`;

const TASKS_HANDLERS = `import type { TasksHandlers } from "../generated/index.gen.js";
import { memory } from "./memory.js";

/**
 * The operations on \`tasks\`: the in-memory store's, with createTask as an example of your own
 * method. Replace the others the same way; TasksHandlers in ../generated/handlers.gen.ts says what
 * each one receives and returns.
 */
export const tasks: TasksHandlers = {
  ...memory.tasks,
  createTask: async (request) => {
    // The body is validated and typed; \`principal\` is the verified caller (tasks:write).
    const task = await memory.tasks.createTask(request);
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
npm start          # generates src/generated, compiles, serves on http://127.0.0.1:8080 (PORT to change)
\`\`\`

| file | what it is |
|---|---|
| \`api.yaml\` | the declaration: resources, fields, guards, access rules. Edit it, then \`npm run generate\` |
| \`src/generated/\` | generated from api.yaml: the OpenAPI document and the server code. Never edit; commit it |
| \`src/main.ts\` | the server: your handlers, token check and token endpoint (a demo user to replace) |
| \`src/handlers/\` | one file per resource, using the in-memory store until you replace its methods |
| \`codegen.schema.json\` | the JSON Schema of api.yaml, for completion in editors |

Try it (the demo user is \`demo\` / \`demo-password\`):

\`\`\`sh
TOKEN=$(curl -s -X POST http://127.0.0.1:8080/token -d 'username=demo&password=demo-password&scope=projects:write+tasks:write' | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).access_token')
curl -s -X POST http://127.0.0.1:8080/projects -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"name": "Launch"}'
curl -s -X POST http://127.0.0.1:8080/tasks -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"title": "Write the docs", "projectId": 1}'
curl -s "http://127.0.0.1:8080/tasks?projectId=1" -H "Authorization: Bearer $TOKEN"
\`\`\`

In CI, \`npx codegen api.yaml -o src/generated --check\` fails when the committed generated code
is not what api.yaml gives.
`;
}

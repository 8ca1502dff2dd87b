// What `codegen init` scaffolds for the API an api.yaml declares: the server (src/main.ts) and one
// handler file per resource, named and typed as the generated code names them (src/model/api-model.ts),
// so that the project compiles after `npm run generate` whatever resources api.yaml holds.
import { checkDeclaration, modelOfDocument } from "../compile/compile.js";
import { expandDeclaration } from "../compile/expand/expand.js";

/** A resource as the scaffold names it: its file under src/handlers, its handlers' property and interface, its operations. */
export interface ScaffoldResource {
  /** The collection name (`blog-posts`), also the handler file's name. */
  readonly fileName: string;
  /** The property of `handlers` and of the store (`blogPosts`), and the handler file's export. */
  readonly property: string;
  /** The generated handler interface (`BlogPostsHandlers`). */
  readonly interfaceName: string;
  readonly operationIds: readonly string[];
}

/** What init needs to know of a declaration to scaffold a server for it. */
export interface ApiOutline {
  readonly resources: readonly ScaffoldResource[];
  /** createServer needs `verifyToken`. */
  readonly hasGuards: boolean;
  /** The API serves a token endpoint: createServer takes `issueToken`. */
  readonly hasTokenEndpoint: boolean;
  /** createServer needs `securityHooks` (schemes without a guard): init writes no server for such an API. */
  readonly hasSecurityHooks: boolean;
  /** Every scope the API's guards grant, in the order declared: the demo user holds them all. */
  readonly scopes: readonly string[];
}

/** The outline of the declaration `text`, or why there is none (a sentence, for `skipped ...: REASON`). Pure. */
export function outlineOf(file: string, text: string): ApiOutline | string {
  const checked = checkDeclaration(file, text);
  if (!checked.value) return `${file} is not a valid declaration (\`codegen validate ${file}\` says why); run init again once it is`;
  const document = expandDeclaration(checked.value);
  const view = modelOfDocument(file, text, document, file);
  if (!view.value) return `codegen cannot generate code for ${file} (\`codegen ${file}\` says why)`;
  const scopes = new Set<string>();
  for (const scheme of Object.values(document.components?.securitySchemes ?? {})) {
    const flows = "flows" in scheme ? (scheme.flows as Record<string, { scopes?: Record<string, string> }>) : {};
    for (const flow of Object.values(flows)) for (const scope of Object.keys(flow.scopes ?? {})) scopes.add(scope);
  }
  return {
    resources: view.value.resources.map((r) => ({
      fileName: r.fileName,
      property: r.property,
      interfaceName: r.interfaceName,
      operationIds: r.methods.map((m) => m.operationId),
    })),
    hasGuards: view.value.hasGuards,
    hasTokenEndpoint: view.value.hasTokenEndpoint,
    hasSecurityHooks: view.value.hasSecurityHooks,
    scopes: [...scopes],
  };
}

/** The demo user of the project's main.ts, as `codegen serve --user` takes it (`npm run dev`). */
export function demoUser(outline: ApiOutline | undefined): string {
  return outline === undefined || outline.scopes.length === 0 ? "demo:demo-password" : `demo:demo-password:${outline.scopes.join(",")}`;
}

/** `text` broken into lines of at most `width` characters (words kept whole), each after `prefix`. */
function wrap(text: string, prefix: string, width = 100): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && prefix.length + line.length + 1 + word.length > width) {
      lines.push(prefix + line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(prefix + line);
  return lines;
}

/** A resource's handler file: the store's handlers, to replace a method at a time. */
export function handlerSource(resource: ScaffoldResource): string {
  const doc =
    `The operations on \`${resource.fileName}\`: the store's for now (./store.ts). Replace them one method at a time ` +
    `(${resource.operationIds.join(", ")}) with your own, e.g. over a database; ${resource.interfaceName} in ` +
    `../generated/handlers.gen.ts says what each one receives and returns. The generated server has already checked ` +
    `the token, the scopes and the request before calling them.`;
  return `import type { ${resource.interfaceName} } from "../generated/index.gen.js";
import { store } from "./store.js";

/**
${wrap(doc, " * ").join("\n")}
 */
export const ${resource.property}: ${resource.interfaceName} = {
  ...store.${resource.property},
};
`;
}

/** The server of an API: its handlers, a token check and token endpoint where it has guards, the store's lifecycle. */
export function mainSource(outline: ApiOutline): string {
  const { resources, hasGuards, hasTokenEndpoint } = outline;
  const imports = [
    ...(hasTokenEndpoint ? [`import { randomBytes } from "node:crypto";`] : []),
    `import type { AddressInfo } from "node:net";`,
    `import { createServer } from "./generated/index.gen.js";`,
    ...(hasTokenEndpoint ? [`import type { Principal } from "./generated/index.gen.js";`] : []),
    ...resources.map((r) => `import { ${r.property} } from "./handlers/${r.fileName}.js";`),
    `import { closeStore, storeReady } from "./handlers/store.js";`,
  ];
  const demo = hasTokenEndpoint
    ? `
// DEMO ONLY, REPLACE BEFORE USE: one hard-coded user holding every scope, and tokens kept in
// memory. Check users against your user store and issue real tokens (or verify the tokens of
// your identity provider in verifyToken).
const demoUser = { username: "demo", password: "demo-password", scopes: ${JSON.stringify(outline.scopes).replaceAll('","', '", "')} };
const sessions = new Map<string, Principal>();
`
    : "";
  const tokenOptions = !hasGuards
    ? ""
    : hasTokenEndpoint
      ? `  // Called with the bearer token: the principal with the scopes it grants, or undefined (401).
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
`
      : `  // Called with the bearer token: the principal with the scopes it grants, or undefined (401).
  // REPLACE BEFORE USE: this refuses every token. Verify the tokens of your identity provider here
  // (verifyJwt, for JWTs: codegen-rest-ts's README, "JWT guards").
  verifyToken: () => undefined,
`;
  return `// The server: the generated API (src/generated, written by \`npm run generate\`) with your
// handlers${hasGuards ? " and your token check" : ""}. This file is yours; codegen never writes it.
${imports.join("\n")}
${demo}
const server = createServer({
  handlers: { ${resources.map((r) => r.property).join(", ")} },
${tokenOptions}  onError: (error) => console.error(error),
  // GET /readyz asks the store (the database when there is one); GET /healthz is the process.
  ready: () => storeReady(),
  // One line per request, as \`codegen serve\` prints it: \`POST /tasks 201 4 ms demo\`. Delete this
  // option to turn it off, or send the event to your own logger or metrics instead.
  onResponse: ({ method, path, status, duration, principal, aborted }) =>
    console.log(printable(\`\${method} \${path} \${status} \${Math.round(duration)} ms\${principal ? \` \${principal.subject}\` : ""}\${aborted ? " (aborted)" : ""}\`)),
});

/** The line with control and non-ASCII characters as \`\\u{...}\`: a request's path cannot forge a log line. */
function printable(line: string): string {
  return line.replace(/[^\\x20-\\x7e]/gu, (c) => \`\\\\u{\${c.codePointAt(0)!.toString(16)}}\`);
}

const port = Number(process.env.PORT ?? 8080);
server.listen(port, "127.0.0.1", () => {
  const { address, port: bound } = server.address() as AddressInfo;
  console.log(\`listening on http://\${address}:\${bound}\`);
});

// A deploy or Ctrl-C: stop accepting, answer the requests in flight (10 s at most), then end the
// store's pool; the process then exits by itself.
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    console.log(\`\${signal}: finishing the requests in flight\`);
    void server.shutdown({ timeoutMs: 10_000, close: () => closeStore() });
  });
}
`;
}

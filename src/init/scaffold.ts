// What `codegen init` scaffolds for the API an api.yaml declares: the server (src/main.ts) and one
// handler file per resource, named and typed as the generated code names them (src/model/api-model.ts),
// so that the project compiles after `npm run generate` whatever resources api.yaml holds.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type Handlebars from "handlebars";
import { checkDeclaration, isDeclarationValue, modelOfDocument } from "../compile/compile.js";
import { loadDocument } from "../compile/declaration/load.js";
import { expandDeclaration } from "../compile/expand/expand.js";
import { breakLongLines } from "../emit/layout.js";
import type { ApiModel, ResourceView } from "../model/api-model.js";

/**
 * What init needs to know of a declaration to scaffold a server for it: the model its code is
 * generated from, and every scope the API's guards grant, in the order declared (the demo user
 * holds them all).
 */
export type ApiOutline = ApiModel & { readonly scopes: readonly string[] };

/** The outline of the declaration `text`, or why there is none (a sentence, for `skipped ...: REASON`). Pure. */
export function outlineOf(file: string, text: string): ApiOutline | string {
  const loaded = text.includes("\u0000") ? undefined : loadDocument(file, text);
  // Why apart: such a document validates, and handlers of its operations are not a resource's store.
  if (loaded?.document && !isDeclarationValue(loaded.document.value)) {
    return `${file} is an OpenAPI document, not a declaration: init writes a server and handlers for a declaration's resources only`;
  }
  const checked = checkDeclaration(file, text, loaded);
  if (!checked.value) return `${file} is not a valid declaration (\`codegen validate ${file}\` says why); run init again once it is`;
  const document = expandDeclaration(checked.value);
  const view = modelOfDocument(file, text, document, file);
  if (!view.value) return `codegen cannot generate code for ${file} (\`codegen ${file}\` says why)`;
  const scopes = new Set<string>();
  for (const scheme of Object.values(document.components?.securitySchemes ?? {})) {
    const flows = "flows" in scheme ? (scheme.flows as Record<string, { scopes?: Record<string, string> }>) : {};
    for (const flow of Object.values(flows)) for (const scope of Object.keys(flow.scopes ?? {})) scopes.add(scope);
  }
  return { ...view.value, scopes: [...scopes] };
}

/** The demo user of the project's main.ts, as `codegen serve --user` takes it (`npm run dev`). */
export function demoUser(outline: ApiOutline | undefined): string {
  return outline === undefined || outline.scopes.length === 0 ? "demo:demo-password" : `demo:demo-password:${outline.scopes.join(",")}`;
}

/** A resource's handler file: the store's handlers, to replace a method at a time. */
export function handlerSource(resource: ResourceView): string {
  const doc =
    `The operations on \`${resource.fileName}\`: the store's for now (./store.ts). Replace them one method at a time ` +
    `(${resource.methods.map((m) => m.operationId).join(", ")}) with your own, e.g. over a database; ${resource.interfaceName} in ` +
    `../generated/handlers.gen.ts says what each one receives and returns. The generated server has already checked ` +
    `the token, the scopes and the request before calling them.`;
  // The comment's text as one line, filled to the width generated code keeps (its names hold no space or `*/`).
  return initText("handlers.ts", { ...resource, doc: breakLongLines(` * ${doc}`) });
}

/** The server of an API: its handlers, a token check and token endpoint where it has guards, the store's lifecycle. */
export function mainSource(outline: ApiOutline): string {
  const scopes = JSON.stringify(outline.scopes).replaceAll('","', '", "');
  return initText("main.ts", { ...outline, scopes, handlers: outline.resources.map((r) => r.property).join(", ") });
}

/**
 * A text init writes: templates/init/FILE.hbs (beside `dist/` or `src/`), its `{{name}}`s
 * filled from `view`.
 */
export function initText(file: string, view: object = {}): string {
  const source = readFileSync(new URL(`../../templates/init/${file}.hbs`, import.meta.url), "utf8");
  return (createRequire(import.meta.url)("handlebars") as typeof Handlebars).compile(source, { strict: true, noEscape: true })(view);
}

// Helpers for servers generated from OpenAPI documents written by others: generate and compile one
// to JavaScript in a temporary folder (once per test file), and check an answer against the
// document with ajv over the declared response's schema (an independent validator).

import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { expect } from "vitest";
import { nodeHost } from "../../src/host.js";
import { generateFiles } from "../../src/pipeline.js";
import { compileToJavaScript } from "../../src/serve/compile.js";
import { ROOT } from "../support/fixtures.js";

/** A JSON object. */
export type Json = { [key: string]: unknown };

/** A generated server module, as far as these tests use it (the options are the document's own). */
export type DocumentServer = {
  // (`any`: each document's options differ.)
  api: { createServer(options: any): Server };
  dispose(): Promise<void>;
};

/** Generates a document (a path relative to the repository root), compiles it to JavaScript in a temporary folder and imports it. */
export async function compileDocument(file: string): Promise<DocumentServer> {
  const host = { ...nodeHost(), cwd: ROOT };
  const result = await generateFiles(host, file, readFileSync(path.join(ROOT, file), "utf8"), { outDir: "generated-document", format: false });
  if (!result.value) throw new Error(result.diagnostics.map((d) => d.message).join("\n"));
  const dir = await mkdtemp(path.join(tmpdir(), "codegen-document-"));
  for (const generated of await compileToJavaScript(result.value)) {
    const target = path.join(dir, generated.path);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, generated.contents);
  }
  const api = (await import(pathToFileURL(path.join(dir, "index.gen.js")).href)) as DocumentServer["api"];
  return { api, dispose: () => rm(dir, { recursive: true, force: true }) };
}

/** What came back, as these checks read it. */
export type DocumentReply = { status: number; contentType: string | null; text: string };

const escape = (step: string) => step.replace(/~/g, "~0").replace(/\//g, "~1");

/** A `$ref` of the document followed: the value and its JSON pointer. */
function follow(document: Json, value: Json, pointer: string): { value: Json; pointer: string } {
  let at = { value, pointer };
  for (let hops = 0; typeof at.value["$ref"] === "string" && hops < 16; hops++) {
    const ref = at.value["$ref"];
    let found: unknown = document;
    for (const step of ref.slice(2).split("/")) found = (found as Json)[step.replace(/~1/g, "/").replace(/~0/g, "~")];
    at = { value: found as Json, pointer: ref.slice(1) };
  }
  return at;
}

/**
 * Checks an answer of the operation `method path` (the path as the document writes it) against
 * the document: its status is declared (its code, its range, or `default`), its media type is one
 * the response declares (none when it declares no content), and ajv accepts its body under that
 * media type's schema. Answers the parsed body.
 */
export function expectConforms(ajv: Ajv2020, document: Json, method: string, template: string, reply: DocumentReply): unknown {
  const operationPointer = `/paths/${escape(template)}/${method}`;
  const operation = (document["paths"] as Json)[template] as Json;
  const responses = ((operation[method] as Json)["responses"] ?? {}) as Json;
  const code = String(reply.status);
  const keys = Object.keys(responses);
  const key = keys.find((k) => k === code) ?? keys.find((k) => k.toUpperCase() === `${code[0]!}XX`) ?? keys.find((k) => k === "default");
  expect(key, `${method} ${template} answered ${code}, which it does not declare`).toBeDefined();
  const response = follow(document, responses[key!] as Json, `${operationPointer}/responses/${escape(key!)}`);
  const content = (response.value["content"] ?? {}) as Json;
  if (Object.keys(content).length === 0) {
    expect([reply.contentType, reply.text], `${method} ${template} ${code} declares no content`).toEqual([null, ""]);
    return undefined;
  }
  const sent = (reply.contentType ?? "").split(";")[0]!.trim();
  // The declared media type or range (`*/*`, `application/*`) the answer's type falls in.
  const type = [sent, `${sent.split("/")[0]!}/*`, "*/*"].find((range) => Object.hasOwn(content, range));
  expect(type, `${method} ${template} ${code}: ${sent} is not declared`).toBeDefined();
  const json = sent === "application/json" || sent.endsWith("+json");
  const body: unknown = json ? JSON.parse(reply.text) : reply.text;
  const media = content[type!] as Json;
  if (media["schema"] === undefined) return body;
  const validate = ajv.getSchema(`document#${response.pointer}/content/${escape(type!)}/schema`);
  expect(validate, "the schema is found").toBeDefined();
  const valid = validate!(body);
  expect(valid, `${method} ${template} ${code}: ${reply.text} fails its schema: ${JSON.stringify(validate!.errors)}`).toBe(true);
  return body;
}

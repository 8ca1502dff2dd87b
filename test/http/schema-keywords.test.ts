// A document written by others whose request body uses the JSON Schema
// 2020-12 keywords (propertyNames, patternProperties, prefixItems, if/then/else,
// unevaluatedProperties, dependentRequired), generated, type-checked under the strict options and
// served over real HTTP on 127.0.0.1: every bad field is answered 400 at its path, a good body
// reaches the handler.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileTrees } from "../support/generated-code.js";
import { ROOT } from "../support/fixtures.js";
import { START_TIMEOUT, call, compileText, expectError, generateText, obj } from "./support.js";
import type { Json } from "./support.js";

const DOCUMENT = readFileSync(path.join(ROOT, "fixtures/openapi/schema-keywords/openapi.yaml"), "utf8");

describe("2020-12 keywords in a request body, over HTTP (item 4)", () => {
  let server: Server;
  let at = "";
  let dispose = async () => {};
  const received: unknown[] = [];

  beforeAll(async () => {
    const compiled = await compileText(DOCUMENT);
    dispose = compiled.dispose;
    const createOrder = (input: Json) => {
      received.push(input.body);
      return { status: 200, body: input.body };
    };
    server = compiled.api.createServer({ handlers: { orders: { createOrder } }, verifyToken: () => undefined });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    at = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, START_TIMEOUT);
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await dispose();
  });

  const good = { country: "US", zip: "12345", line: ["pen", 2], labels: { xa: "s", b: 1 }, card: "4", expiry: "12/30" };

  it("takes a body that meets them all", async () => {
    const reply = await call(at, "POST", "/orders", { json: good });
    expect(reply.status).toBe(200);
    expect(obj(reply)).toEqual(good);
    expect(received).toContainEqual(good);
  });

  it.each<[string, Json, Json]>([
    ["prefixItems: each item at its index", { ...good, line: [1, 0] }, { "line[0]": "must be a string", "line[1]": "must be at least 1" }],
    ["prefixItems with items false: no third item", { ...good, line: ["pen", 2, 3] }, { "line[2]": "must not match the excluded schema" }],
    [
      "patternProperties and additionalProperties",
      { ...good, labels: { xa: 1, b: "s" } },
      { "labels.xa": "must be a string", "labels.b": "must be an integer" },
    ],
    ["propertyNames", { ...good, labels: { Big: 1 } }, { "labels.Big": "is not an allowed field name" }],
    ["dependentRequired", { ...good, expiry: undefined }, { expiry: "is required when card is present" }],
    ["if/then", { ...good, zip: undefined }, { zip: "is required" }],
    ["if/else", { ...good, country: "CA", zip: undefined }, { postal: "is required" }],
    ["unevaluatedProperties", { ...good, note: "x" }, { note: "is not a known field" }],
  ])("answers 400 for %s, naming the field", async (_name, body, detail) => {
    const reply = await call(at, "POST", "/orders", { json: body });
    expect(expectError(reply, 400, Object.keys(detail))).toEqual(detail);
  });
});

describe("the types of the 2020-12 keywords compile under the strict options", () => {
  const scratch = mkdtempSync(path.join(tmpdir(), "codegen-keywords-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("types.gen.ts says them as precisely as TypeScript can", async () => {
    const result = await generateText(DOCUMENT);
    expect(result.diagnostics).toEqual([]);
    const types = result.value!.find((file) => file.path === "types.gen.ts")!.contents;
    expect(types).toContain("line: [string, number];");
    expect(types).toContain("labels?: { [key: `x${string}`]: string; [key: string]: number | string };");
    compileTrees([result.value!], scratch);
  }, 60_000);
});

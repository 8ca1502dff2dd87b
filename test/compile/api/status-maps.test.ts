// Objects keyed by HTTP status that live in the model for the whole run (each route's
// `responses`, each operation's `refusals`) are dictionaries: with keys such as "200" and "404"
// V8 otherwise keeps an array of some 600 slots (5 KB) per object, 30 MB of the model at 1000
// resources (src/compile/expand/schemas.ts, statusMap). Asked of V8 itself, not timed or weighed.
import { readFileSync } from "node:fs";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { describe, expect, it } from "vitest";
// @ts-expect-error: the benchmark's generator is plain JavaScript.
import { declarationText } from "../../../bench/make-declarations.js";
import { buildApiModel } from "../../../src/compile/api/build.js";
import { statusMap } from "../../../src/compile/expand/schemas.js";
import { documentFromText, openapiFromText } from "../../../src/pipeline.js";
import { ROOT } from "../../support/fixtures.js";

// Why a function made after the flag: V8 reads its own intrinsics (`%Name`) only in code parsed while the flag is on.
setFlagsFromString("--allow-natives-syntax");
const isDictionary = new Function("o", "return %HasDictionaryElements(o)") as (o: object) => boolean;

/** Every status-keyed object of the model's routes: their responses and refusals, with where each is. */
function statusObjects(routes: readonly { readonly methods: object }[]): [string, object][] {
  return routes.flatMap((route, i) =>
    Object.entries(route.methods).flatMap(([method, operation]: [string, { responses?: object; refusals?: object }]) => [
      ...(operation.responses ? [[`routes[${i}].${method}.responses`, operation.responses] as [string, object]] : []),
      ...(operation.refusals ? [[`routes[${i}].${method}.refusals`, operation.refusals] as [string, object]] : []),
    ]),
  );
}

describe("status-keyed maps of the model", () => {
  it("statusMap is a dictionary, and keeps its keys in the order of any object", () => {
    const map = statusMap<number>();
    map["500"] = 1;
    map["200"] = 2;
    map["4XX"] = 3;
    expect(isDictionary(map)).toBe(true);
    expect(isDictionary({})).toBe(false);
    expect(Object.keys(map)).toEqual(Object.keys({ 500: 1, 200: 2, "4XX": 3 }));
  });

  it("every route's responses of a declaration are dictionaries", async () => {
    const { value } = await openapiFromText("api-3.yaml", declarationText(3) as string);
    const model = buildApiModel(value!, { inputPath: "api-3.yaml" });
    const found = statusObjects(model.api.routes);
    expect(found.length).toBeGreaterThanOrEqual(18);
    expect(found.filter(([, object]) => !isDictionary(object)).map(([at]) => at)).toEqual([]);
  });

  it("every route's responses and refusals of a document written by others are dictionaries", async () => {
    const file = path.join(ROOT, "fixtures/openapi/error-shapes/openapi.yaml");
    const { value } = await documentFromText(file, readFileSync(file, "utf8"), ROOT, {});
    const model = buildApiModel(value!, { inputPath: "openapi.yaml" });
    const found = statusObjects(model.api.routes);
    expect(found.some(([at]) => at.endsWith(".refusals"))).toBe(true);
    expect(found.filter(([, object]) => !isDictionary(object)).map(([at]) => at)).toEqual([]);
  });
});

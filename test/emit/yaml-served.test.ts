// Openapi.yaml is known to be what the generated server's YAML writer makes of the
// document (src/emit/yaml.ts, yamlOfDocument) by asking that writer about each distinct scalar
// and key, not by comparing the whole; a string of one line without control characters or a
// document marker is known by the rules both writers share (test/emit/yaml-writer.test.ts holds them). Here the writer is made to differ on one text at a time:
// wherever that text stands (a value of one line, of several lines, a key, at any depth), the
// document is no longer known served as it is, and src/render/document-layout.ts checks it whole.
import { describe, expect, it, vi } from "vitest";
import { yamlOfDocument } from "../../src/emit/yaml.js";

const altered = vi.hoisted(() => ({ text: undefined as string | undefined }));
vi.mock("../../runtime/yaml.gen.js", async (original) => {
  const real = await original<typeof import("../../runtime/yaml.gen.js")>();
  // The server's writer, but writing `altered.text` with an extra character wherever it writes it.
  const yamlOfData = (value: unknown) => {
    const text = real.yamlOfData(value);
    return altered.text === undefined ? text : text.split(altered.text).join(`${altered.text}!`);
  };
  return { ...real, yamlOfData };
});

/** A document with `text` at `place`, every other scalar fresh (the writer's answers are remembered per text). */
function documentWith(text: string, place: "value" | "item" | "key" | "deep", n: number): Record<string, unknown> {
  const around = { title: `Title ${n}, of the API`, "x-n": n, summary: `a: b ${n}` };
  if (place === "value") return { ...around, description: text };
  if (place === "item") return { ...around, tags: [`t${n}`, text] };
  if (place === "key") return { ...around, paths: { [text]: { get: { summary: `s ${n}` } } } };
  return { ...around, paths: { [`/p${n}`]: { get: { responses: { "200": { description: text } } } } } };
}

describe("openapi.yaml known to be the server's YAML", () => {
  it.each([
    ["a value of one line with a control character", "Orders,\u0085 listed: N", "value"],
    ["an item of one line with a control character", "'quoted'\u007f text #N", "item"],
    ["a key", "/orders/{id}: N", "key"],
    ["a value of several lines, deep", "line N\nsecond line\n", "deep"],
    ["a value of several lines at the top", "line N\n  indented\n", "value"],
  ] as const)("is not, where the server's writer writes %s otherwise", (_what, text, place) => {
    // Fresh texts each time: the writer's answers are remembered per text.
    const fresh = (n: number) => text.replace("N", String(n));
    altered.text = undefined;
    expect(yamlOfDocument(documentWith(fresh(1), place, 1)).servedAsIs).toBe(true);
    altered.text = fresh(2).split("\n")[0];
    expect(yamlOfDocument(documentWith(fresh(2), place, 2)).servedAsIs).toBe(false);
    altered.text = undefined;
  });

  it("takes a string of one line without control characters by the rules both writers share, not by asking", () => {
    altered.text = "Orders, listed: 3";
    expect(yamlOfDocument(documentWith("Orders, listed: 3", "value", 3)).servedAsIs).toBe(true);
    altered.text = undefined;
  });
});

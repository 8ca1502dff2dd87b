import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, UPDATING, declarationOf, expectGolden, fixtureCases, runCli } from "./support/fixtures.js";

const cases = fixtureCases("valid");

describe("valid fixtures expand to their golden OpenAPI documents", () => {
  it("has the cases the issue asks for", () => {
    expect(cases).toEqual(expect.arrayContaining(["blog", "minimal", "no-auth", "guard-password", "guard-authorization-code", "guard-oauth2", "nested"]));
  });

  it.each(cases)("%s", async (name) => {
    const result = await runCli(["openapi", declarationOf("valid", name)]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expectGolden(result.stdout, `fixtures/valid/${name}/expected/openapi.yaml`);
  });

  it("expands byte-identically on every run", async () => {
    const file = declarationOf("valid", "blog");
    const first = await runCli(["openapi", file]);
    const second = await runCli(["openapi", file, "--format", "yaml"]);
    expect(second.stdout).toBe(first.stdout);
    expect(first.stdout.length).toBeGreaterThan(1000);
  });
});

describe.skipIf(UPDATING)("redocly lint", () => {
  it("passes every golden document with no errors", () => {
    // Why not prototype-names: redocly itself calls `e.hasOwnProperty(...)` on the document's
    // objects and crashes on a schema property named `hasOwnProperty` (a valid name).
    const files = cases.filter((name) => name !== "prototype-names").map((name) => `fixtures/valid/${name}/expected/openapi.yaml`);
    const bin = path.join(ROOT, "node_modules/.bin/redocly");
    // redocly exits non-zero on any error; warnings (such as example.com servers) are allowed.
    const output = execFileSync(bin, ["lint", "--format", "summary", ...files], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    });
    expect(output).not.toMatch(/\berror\b/i);
  }, 60_000);
});

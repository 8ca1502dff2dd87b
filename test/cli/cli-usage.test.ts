// What the CLI says about its own usage: help texts that are true of the code today, and a
// suggestion for a mistyped option even when the command it was given to has none near it.
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { memoryHost } from "../support/memory-host.js";

async function run(argv: string[]) {
  const host = memoryHost();
  const code = await main(argv, host);
  return { code, out: host.out, err: host.err };
}

describe("help", () => {
  it("no longer says lookarounds need --allow-unsafe-patterns (the linear matcher takes them)", async () => {
    for (const command of ["generate", "serve", "openapi", "validate"]) {
      const { out } = await run([command, "--help"]);
      expect(out).toContain("--allow-unsafe-patterns");
      expect(out).not.toMatch(/lookaround/);
      expect(out.replace(/\s+/g, " ")).toContain("backreferences");
    }
  });

  it("openapi names its argument <input>, a declaration or an OpenAPI document", async () => {
    const { out } = await run(["openapi", "--help"]);
    expect(out).toMatch(/^Usage: codegen openapi \[options\] <input>$/m);
    expect(out.replace(/\s+/g, " ")).toMatch(/input +the declaration, or an OpenAPI document/);
  });
});

describe("an unknown option", () => {
  it("is answered with the near option of the same command, as commander does", async () => {
    const { code, err } = await run(["generate", "api.yaml", "--ouput", "x"]);
    expect(code).toBe(2);
    expect(err).toBe("error: unknown option '--ouput'\n(Did you mean --output?)\n");
  });

  it("is answered with the commands that have a near option when its own has none", async () => {
    const { code, err } = await run(["validate", "api.yaml", "--ouput", "x"]);
    expect(code).toBe(2);
    expect(err).toBe("error: unknown option '--ouput'\n(--output is an option of codegen generate, codegen migrate, codegen openapi)\n");
  });

  it("is answered bare when no command has an option near it", async () => {
    const { err } = await run(["validate", "api.yaml", "--zzzzzz"]);
    expect(err).toBe("error: unknown option '--zzzzzz'\n");
  });
});

// `codegen init` never writes through a symbolic link to a place outside the project: a linked
// folder on the way to any file it writes (`src`, `src/handlers`) is refused before anything is
// written; a link, pipe or device standing where a file goes is kept as it is, never read or
// written through (docs/cli.md, "codegen init"). Real files, links and pipes.
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { projectFiles } from "../../src/init/init.js";
import { hostIn } from "../support/host-in.js";

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-init-links-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let made = 0;
/** A fresh folder holding an empty project folder `app` and an outside folder. */
function place(): { root: string; app: string; outside: string } {
  const root = path.join(scratch, `case-${made++}`);
  mkdirSync(path.join(root, "app"), { recursive: true });
  mkdirSync(path.join(root, "outside"));
  return { root, app: path.join(root, "app"), outside: path.join(root, "outside") };
}

/** The folders init writes into, below the project folder. */
const FOLDERS = [
  ...new Set(projectFiles({ name: "x", codegenSpec: "^0" }, undefined).files.flatMap((f) => (f.path.includes("/") ? [path.posix.dirname(f.path)] : []))),
];

describe("codegen init and symbolic links", () => {
  it("knows the folders it writes into (the property below links each of them)", () => {
    expect(FOLDERS).toEqual(expect.arrayContaining(["src", "src/handlers"]));
  });

  it("refuses a linked folder leading outside the project, writes nothing anywhere, and a link inside the project is followed (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...FOLDERS), fc.boolean(), async (folder, leadsOutside) => {
        const { root, app, outside } = place();
        // The folders above the linked one are real folders of the project.
        mkdirSync(path.join(app, folder, ".."), { recursive: true });
        const inside = path.join(app, "kept-elsewhere");
        mkdirSync(inside);
        symlinkSync(leadsOutside ? outside : inside, path.join(app, folder));
        const host = hostIn(root);
        const code = await main(["init", "app"], host);
        if (leadsOutside) {
          expect(code).toBe(1);
          expect(host.err()).toContain(`\`${path.join("app", folder)}\` is a symbolic link to \`${outside}\`, outside the project`);
          expect(host.err()).toContain("[output/link-outside-project]");
          expect(host.err()).not.toMatch(/\n\s+at /);
          expect(readdirSync(outside)).toEqual([]);
          // Refused before any write: the project holds only what the test made.
          expect(readdirSync(app).sort()).toEqual(["kept-elsewhere", ...(folder.includes("/") ? ["src"] : [folder])].sort());
        } else {
          expect(code).toBe(0);
          expect(readdirSync(inside).length).toBeGreaterThan(0);
          expect(readFileSync(path.join(app, "package.json"), "utf8")).toContain('"name": "app"');
        }
      }),
      { numRuns: 12 },
    );
  });

  it("keeps a link, a dangling link and a pipe standing where a file goes: never read, written or replaced", async () => {
    const { root, app, outside } = place();
    writeFileSync(path.join(outside, "package.json"), '{ "name": "theirs" }\n');
    symlinkSync(path.join(outside, "package.json"), path.join(app, "package.json"));
    symlinkSync(path.join(outside, "README.md"), path.join(app, "README.md"));
    execFileSync("mkfifo", [path.join(app, "api.yaml")]);
    execFileSync("mkfifo", [path.join(app, "eslint.config.js")]);
    const host = hostIn(root);
    expect(await main(["init", "app"], host)).toBe(0);
    expect(readFileSync(path.join(outside, "package.json"), "utf8")).toBe('{ "name": "theirs" }\n');
    expect(readlinkSync(path.join(app, "package.json"))).toBe(path.join(outside, "package.json"));
    expect(readlinkSync(path.join(app, "README.md"))).toBe(path.join(outside, "README.md"));
    expect(readdirSync(outside)).toEqual(["package.json"]);
    expect(lstatSync(path.join(app, "api.yaml")).isFIFO()).toBe(true);
    for (const kept of ["package.json", "api.yaml"]) expect(host.err()).toContain(`kept ${path.join("app", kept)}: it exists`);
    // README.md is the example API's, written only beside init's own api.yaml: here it is not even looked at.
    expect(host.err()).toContain(`skipped ${path.join("app", "README.md")}`);
    expect(host.out()).toContain("ESLint: add");
    // With no api.yaml it can read, init writes no server that might not compile against it.
    expect(existsSync(path.join(app, "src/main.ts"))).toBe(false);
    expect(host.err()).toContain(`skipped ${path.join("app", "src", "main.ts")}: api.yaml is not a regular file init reads`);
  });
});

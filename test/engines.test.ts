// `npm install` warns (EBADENGINE) for every installed package whose `engines.node` excludes the
// running Node. The package promises the Node versions of its own `engines`; the lockfile pins what
// an install brings, so its entries are read here rather than installing on each Node version.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./support/fixtures.js";

// semver is npm's own range reader (here through the dev tools that depend on it).
const semver = createRequire(import.meta.url)("semver") as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};

type Locked = { version?: string; dev?: boolean; engines?: { node?: string } };
const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, Locked> };

/** The lowest version of each alternative of the package's own range: `^20.19.0 || >=22.12.0` -> 20.19.0, 22.12.0. */
const promised = pkg.engines.node.split("||").map((part) => semver.minVersion(part.trim())?.version ?? part);

/** Installed entries whose declared Node range excludes `version`, as `path@version (range)`. */
function refusing(version: string, include: (entry: Locked) => boolean): string[] {
  return Object.entries(lock.packages)
    .filter(([where, entry]) => where !== "" && include(entry) && entry.engines?.node !== undefined)
    .filter(([, entry]) => !semver.satisfies(version, entry.engines!.node!))
    .map(([where, entry]) => `${where.replace(/^.*node_modules\//, "")}@${entry.version ?? "?"} (${entry.engines!.node!})`);
}

describe("a clean install on every Node the package supports", () => {
  it("names Node 20 and 22 in engines", () => {
    expect(promised.map((version) => version.split(".")[0])).toEqual(["20", "22"]);
  });

  it.each(promised)("no dependency of a user's install refuses Node %s", (version) => {
    expect(refusing(version, (entry) => entry.dev !== true)).toEqual([]);
  });

  // A contributor's `npm install` brings the dev tools too; Node 20's lowest and a current 22.
  it.each([promised[0]!, "22.22.0"])("no dev dependency refuses Node %s", (version) => {
    expect(refusing(version, (entry) => entry.dev === true)).toEqual([]);
  });
});

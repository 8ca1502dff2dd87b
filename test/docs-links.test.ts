import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./support/fixtures.js";

/** What the npm package holds besides `files`: npm always packs these. */
const packed = new Set([
  ...(JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { files: string[] }).files,
  "README.md",
  "LICENSE",
  "package.json",
]);

/** The user-facing pages: they ship in the npm package, so every link must work in a clone and in the tarball. */
const pages = [
  "README.md",
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** The text outside fenced code blocks, where a `[x](y)` is a link. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, "");

/** Relative link targets of a page: `[text](target)`, without web addresses. */
function relativeLinks(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as `-`, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6} +(.+?) *$/gm)) {
    const slug = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    out.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return out;
}

describe("links in README.md and docs/", () => {
  it.each(pages)("every relative link of %s resolves inside the repository and the npm package", (page) => {
    const problems: string[] = [];
    for (const target of relativeLinks(readFileSync(path.join(ROOT, page), "utf8"))) {
      const [file = "", anchor] = target.split("#");
      const resolved = file === "" ? path.join(ROOT, page) : path.resolve(path.dirname(path.join(ROOT, page)), decodeURIComponent(file));
      const inRepository = path.relative(ROOT, resolved);
      if (inRepository.startsWith("..") || path.isAbsolute(inRepository)) problems.push(`${target}: outside the repository`);
      else if (!existsSync(resolved)) problems.push(`${target}: no such file`);
      else if (!packed.has(inRepository.split(path.sep)[0]!)) problems.push(`${target}: not in the npm package (package.json "files")`);
      else if (anchor !== undefined && (!statSync(resolved).isFile() || !anchors(readFileSync(resolved, "utf8")).has(anchor))) {
        problems.push(`${target}: no such heading`);
      }
    }
    expect(problems).toEqual([]);
  });
});

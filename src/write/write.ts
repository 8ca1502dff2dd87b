import path from "node:path";
import type { Host } from "../host.js";
import type { GeneratedFile } from "../render/render.js";

/** What a write did: files written and files already as generated (left alone, mtimes kept). */
export interface WriteSummary {
  readonly written: number;
  readonly unchanged: number;
}

/**
 * Write generated files into `dir`. A file whose contents are already right is not rewritten,
 * so build tools watching the folder do not rebuild. Paths are the generator's own fixed names,
 * checked here anyway never to leave `dir`.
 */
export async function writeFiles(host: Host, dir: string, files: readonly GeneratedFile[]): Promise<WriteSummary> {
  const root = path.resolve(host.cwd, dir);
  const targets = files.map((file) => {
    const target = path.resolve(root, file.path);
    if (path.relative(root, target).startsWith("..") || path.isAbsolute(path.relative(root, target))) {
      throw new Error(`refusing to write ${file.path} outside ${dir}`);
    }
    return { target, contents: file.contents };
  });
  let written = 0;
  let unchanged = 0;
  for (const { target, contents } of targets) {
    const current = await host.readFile(target).catch(() => undefined);
    if (current === contents) {
      unchanged++;
      continue;
    }
    await host.writeFile(target, contents);
    written++;
  }
  return { written, unchanged };
}

import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { GeneratedFile } from "./render.js";

/** What formatting with the project's prettier needs of it (prettier 3's API). */
interface ProjectPrettier {
  readonly format: (text: string, options: Record<string, unknown>) => Promise<string>;
  readonly resolveConfig: (file: string, options?: { editorconfig?: boolean }) => Promise<Record<string, unknown> | null>;
  readonly clearConfigCache?: () => Promise<void>;
}

/** The project's prettier was not found from the output folder. */
export class ProjectPrettierMissing extends Error {}

/**
 * Format the TypeScript files with the prettier of the project the output folder is in (resolved
 * from that folder, not codegen's own) and the configuration prettier finds for each file there
 * (`.prettierrc`, `package.json`'s `prettier`, `.editorconfig`), so that a team's formatter and
 * codegen agree (`--prettier`). Other files pass unchanged.
 */
export async function formatWithProjectPrettier(files: readonly GeneratedFile[], outDir: string): Promise<GeneratedFile[]> {
  let resolved: string;
  try {
    resolved = createRequire(path.join(outDir, "package.json")).resolve("prettier");
  } catch {
    throw new ProjectPrettierMissing(outDir);
  }
  const prettier = (await import(pathToFileURL(resolved).href)) as ProjectPrettier & { default?: ProjectPrettier };
  const api = typeof prettier.format === "function" ? prettier : prettier.default;
  // A module named prettier without prettier 3's API is no prettier to format with.
  if (typeof api?.format !== "function" || typeof api.resolveConfig !== "function") throw new ProjectPrettierMissing(outDir);
  // Why: prettier caches what it found per folder for the life of the process, so in `--watch` an
  // edited .prettierrc would not be read again; each run reads the configuration as it is now.
  await api.clearConfigCache?.();
  const out: GeneratedFile[] = [];
  for (const file of files) {
    if (!file.path.endsWith(".ts")) {
      out.push(file);
      continue;
    }
    const filepath = path.join(outDir, file.path);
    const config = (await api.resolveConfig(filepath, { editorconfig: true })) ?? {};
    out.push({ path: file.path, contents: await api.format(file.contents, { ...config, filepath }) });
  }
  return out;
}

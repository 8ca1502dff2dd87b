/**
 * The emitters' sources: the Handlebars templates and the runtime files copied into every output,
 * read from the package (beside `dist/` or `src/`) once per process. Why a module of its own:
 * src/write/fresh.ts hashes them to key a generation without loading the renderer.
 */
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { TemplateSources } from "./render.js";

/** The package's own templates folder (beside `dist/` or `src/`). */
const TEMPLATES = fileURLToPath(new URL("../../templates/", import.meta.url));
/** The runtime's sources, copied into every output (beside `dist/` or `src/`). */
const RUNTIME = fileURLToPath(new URL("../../runtime/", import.meta.url));
let templateSources: TemplateSources | undefined;

/** Read the templates once per process: every `.hbs` file and every runtime file. */
export function loadTemplateSources(): TemplateSources {
  if (!templateSources) {
    const read = (dir: string, suffix: string) =>
      Object.fromEntries(
        readdirSync(dir)
          .filter((name) => name.endsWith(suffix))
          .sort()
          .map((name) => [name, readFileSync(path.join(dir, name), "utf8")]),
      );
    templateSources = {
      templates: read(TEMPLATES, ".hbs"),
      resource: readFileSync(path.join(TEMPLATES, "resources/resource.gen.ts.hbs"), "utf8"),
      operationGroup: readFileSync(path.join(TEMPLATES, "operations/operations.gen.ts.hbs"), "utf8"),
      runtime: read(RUNTIME, ".gen.ts"),
    };
  }
  return templateSources;
}

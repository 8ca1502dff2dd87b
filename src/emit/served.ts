import type { DocumentView } from "../model/api-model.js";
import { serverYaml } from "./yaml.js";

/**
 * What document.gen.ts holds of the served document: the path of its first server URL, its JSON
 * data (printed as JSON text when document.gen.ts is rendered), and openapi.yaml's text only where the generated server's writer
 * (runtime/yaml.gen.ts) would not make exactly it from the JSON at its first request,
 * so a large document is not held twice in the generated file. `servedAsIs`: openapi.yaml was
 * written by the server's writer's rules throughout (src/emit/yaml.ts, yamlOfDocument), so the
 * server makes it by construction; else that is checked on `data`.
 */
export function servedDocument(basePath: string, data: unknown, yaml: string, servedAsIs: boolean): DocumentView {
  // Why the data and not a copy parsed from the text: yamlOfData refuses what that text would not keep.
  return servedAsIs || serverYaml(data) === yaml ? { basePath, data } : { basePath, data, yaml };
}

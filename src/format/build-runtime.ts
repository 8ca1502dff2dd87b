// Run by `npm run build` (after tsc): writes the runtime files (runtime/*.gen.ts) in
// their final layout into dist/formatted-runtime/, so `codegen generate` copies them instead of
// formatting them on every run (issue 14). A script inside the package, so a build from the
// packed sources (`prepare`) has it too. The templates are precompiled here too (render.ts).
import { writePrecompiledTemplates } from "../render/render.js";
import { loadTemplateSources } from "../run.js";
import { writeFormattedRuntime } from "./format.js";

await writeFormattedRuntime(loadTemplateSources().runtime);
writePrecompiledTemplates(loadTemplateSources());

// Run by `npm run build` (after tsc): precompiles the templates (src/emit/render.ts), so a run
// loads Handlebars' runtime only and not its compiler. A script inside the package, so a build
// from the packed sources (`prepare`) has it too.
import { writePrecompiledTemplates } from "./render.js";
import { loadTemplateSources } from "./templates.js";

writePrecompiledTemplates(loadTemplateSources());

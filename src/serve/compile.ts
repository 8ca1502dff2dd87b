import type { GeneratedFile } from "../emit/render.js";

/**
 * Turn the generated TypeScript into JavaScript modules Node runs as they are: each file is
 * transpiled on its own (types erased; the generated code uses erasable syntax only), `.ts`
 * becomes `.js`, and a package.json marks the folder as ES modules. Type-checking is the
 * job of `tsc --strict` in the tests, not of this step.
 */
export async function compileToJavaScript(files: readonly GeneratedFile[]): Promise<GeneratedFile[]> {
  const ts = (await import("typescript")).default;
  const out: GeneratedFile[] = [{ path: "package.json", contents: '{ "type": "module" }\n' }];
  for (const file of files) {
    if (!file.path.endsWith(".ts")) continue;
    const { outputText } = ts.transpileModule(file.contents, {
      fileName: file.path,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    });
    out.push({ path: file.path.replace(/\.ts$/, ".js"), contents: outputText });
  }
  return out;
}

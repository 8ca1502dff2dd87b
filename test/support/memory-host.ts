// A host that keeps its files in memory and collects its output, for tests of the commands.
import type { EntryKind, Host } from "../../src/host.js";

/** A host that keeps files in memory and collects output, for tests. */
export function memoryHost(files: Record<string, string> = {}): Host & { files: Map<string, string>; out: string; err: string } {
  const host = {
    files: new Map(Object.entries(files)),
    out: "",
    err: "",
    colour: false,
    cwd: "/work",
    untilStopped: () => Promise.resolve(),
    watch: () => () => undefined,
    async readFile(file: string) {
      const text = host.files.get(file);
      if (text === undefined) throw Object.assign(new Error(`ENOENT: ${file}`), { code: "ENOENT" });
      return text;
    },
    async writeFile(file: string, contents: string) {
      host.files.set(file, contents);
    },
    async entryAt(file: string): Promise<EntryKind> {
      if (host.files.has(file)) return "file";
      return [...host.files.keys()].some((name) => name.startsWith(`${file}/`)) ? "folder" : "none";
    },
    realPath: async (file: string) => file,
    stdout(text: string) {
      host.out += text;
    },
    stderr(text: string) {
      host.err += text;
    },
  };
  return host;
}

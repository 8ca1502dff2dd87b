import path from "node:path";
import { type Host, nodeHost } from "../../src/host.js";

/** A host on the real file system whose folder is `dir`, with captured output. */
export function hostIn(dir: string): Host & { out: () => string; err: () => string } {
  const real = nodeHost();
  let out = "";
  let err = "";
  return {
    ...real,
    cwd: dir,
    colour: false,
    readFile: (file) => real.readFile(path.resolve(dir, file)),
    writeFile: (file, contents) => real.writeFile(path.resolve(dir, file), contents),
    stdout: (text) => void (out += text),
    stderr: (text) => void (err += text),
    out: () => out,
    err: () => err,
  };
}

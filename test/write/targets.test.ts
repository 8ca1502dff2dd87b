// What every write does to what stands at its target (docs/cli.md, "Where codegen writes"): a
// regular file (or nothing) is replaced whole through a new temporary file; a character device or
// a named pipe is written through, never replaced; a symbolic link to anything else, a folder or a
// socket is refused with a diagnostic and left as it was. The real file system, real pipes read
// by a real process, a real device node where the machine lets the test make one.
import { execFileSync, spawn } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync, linkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { type Host, nodeHost } from "../../src/host.js";

const scratch = mkdtempSync(path.join(tmpdir(), "codegen-targets-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const DECLARATION = 'codegen: 1\ninfo: { title: Shelf, version: "1.0.0" }\nresources:\n  books:\n    fields:\n      title: { type: string, required: true }\n';

/** A fresh folder holding api.yaml, and a host on it with captured output. */
function project(name: string): { dir: string; host: Host; err: () => string } {
  const dir = path.join(scratch, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, "api.yaml"), DECLARATION);
  const real = nodeHost();
  let err = "";
  const host: Host = {
    ...real,
    cwd: dir,
    colour: false,
    readFile: (file) => real.readFile(path.resolve(dir, file)),
    stdout: () => undefined,
    stderr: (text) => void (err += text),
  };
  return { dir, host, err: () => err };
}

/** The document `codegen openapi` writes, as it prints it to stdout. */
async function documentText(): Promise<string> {
  const { host } = project(`stdout-${Math.random().toString(36).slice(2)}`);
  let out = "";
  expect(await main(["openapi", "api.yaml"], { ...host, stdout: (text) => void (out += text) })).toBe(0);
  return out;
}

/** Starts `cat` reading a named pipe; resolves to what it read, or rejects when nothing is written in `ms`. */
function readPipe(fifo: string, ms: number): Promise<string> {
  const reader = spawn("cat", [fifo], { stdio: ["ignore", "pipe", "ignore"] });
  let text = "";
  reader.stdout.on("data", (chunk: Buffer) => void (text += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reader.kill();
      reject(new Error(`nothing was written into ${fifo} (it was replaced, or never opened)`));
    }, ms);
    reader.on("close", () => {
      clearTimeout(timer);
      resolve(text);
    });
  });
}

describe("codegen openapi -o: what stands at the target", () => {
  it("writes through a named pipe, which stays a pipe, and the reader gets the whole document", async () => {
    const { dir, host } = project("fifo");
    const fifo = path.join(dir, "openapi.yaml");
    execFileSync("mkfifo", [fifo]);
    const read = readPipe(fifo, 10_000);
    const code = await main(["openapi", "api.yaml", "-o", "openapi.yaml"], host);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(code).toBe(0);
    expect(await read).toBe(await documentText());
  });

  it("writes through a link to a character device, and the link stays the link it was", async () => {
    const { dir, host } = project("device-link");
    const link = path.join(dir, "out.json");
    symlinkSync("/dev/null", link);
    expect(await main(["openapi", "api.yaml", "-o", "out.json"], host)).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe("/dev/null");
    expect(statSync("/dev/null").isCharacterDevice()).toBe(true);
  });

  // A device node of its own (major 1, minor 3: what /dev/null is), so that the old code's
  // renaming would replace this node and never the system's.
  const canMakeDevices = (() => {
    const probe = path.join(scratch, "probe-device");
    try {
      execFileSync("mknod", [probe, "c", "1", "3"], { stdio: "ignore" });
      return lstatSync(probe).isCharacterDevice();
    } catch {
      return false;
    } finally {
      rmSync(probe, { force: true });
    }
  })();
  it.skipIf(!canMakeDevices)("writes through a character device named directly, which stays the device it was", async () => {
    const { dir, host } = project("device");
    const device = path.join(dir, "null");
    execFileSync("mknod", [device, "c", "1", "3"]);
    expect(await main(["openapi", "api.yaml", "-o", "null"], host)).toBe(0);
    expect(lstatSync(device).isCharacterDevice()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(["api.yaml", "null"]);
  });

  it("refuses a link to a file elsewhere, a dangling link, a folder and a socket, leaving each as it was", async () => {
    const { dir, host, err } = project("refused");
    const outside = path.join(scratch, "outside.txt");
    writeFileSync(outside, "theirs\n");
    symlinkSync(outside, path.join(dir, "linked.yaml"));
    symlinkSync(path.join(scratch, "nowhere.yaml"), path.join(dir, "dangling.yaml"));
    mkdirSync(path.join(dir, "folder.yaml"));
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path.join(dir, "socket.yaml"), resolve));
    try {
      for (const [target, what] of [
        ["linked.yaml", "a symbolic link"],
        ["dangling.yaml", "a symbolic link"],
        ["folder.yaml", "a folder"],
        ["socket.yaml", "a socket"],
      ] as const) {
        const before = err().length;
        expect(await main(["openapi", "api.yaml", "-o", target], host), target).toBe(1);
        const said = err().slice(before);
        expect(said).toContain(`\`${target}\` is ${what}`);
        expect(said).toContain("[output/special-target]");
        expect(said).not.toMatch(/\n\s+at /);
      }
      expect(readFileSync(outside, "utf8")).toBe("theirs\n");
      expect(readlinkSync(path.join(dir, "linked.yaml"))).toBe(outside);
      expect(lstatSync(path.join(dir, "dangling.yaml")).isSymbolicLink()).toBe(true);
      expect(readdirSync(scratch)).not.toContain("nowhere.yaml");
      expect(lstatSync(path.join(dir, "folder.yaml")).isDirectory()).toBe(true);
      expect(lstatSync(path.join(dir, "socket.yaml")).isSocket()).toBe(true);
      // Nothing left beside them: no temporary file of a refused write.
      expect(readdirSync(dir).sort()).toEqual(["api.yaml", "dangling.yaml", "folder.yaml", "linked.yaml", "socket.yaml"]);
    } finally {
      server.close();
    }
  });

  it("still replaces a regular file whole (a new file renamed over it: a hard link to the old one keeps the old text)", async () => {
    const { dir, host } = project("regular");
    writeFileSync(path.join(dir, "openapi.yaml"), "old\n");
    linkSync(path.join(dir, "openapi.yaml"), path.join(dir, "old-copy.yaml"));
    expect(await main(["openapi", "api.yaml", "-o", "openapi.yaml"], host)).toBe(0);
    expect(readFileSync(path.join(dir, "openapi.yaml"), "utf8")).toBe(await documentText());
    expect(readFileSync(path.join(dir, "old-copy.yaml"), "utf8")).toBe("old\n");
    expect(lstatSync(path.join(dir, "openapi.yaml")).isFile()).toBe(true);
  });

  it("never writes through whatever stands at a temporary file's name beside the target", async () => {
    const { dir, host } = project("temporary");
    const outside = path.join(scratch, "outside-temporary.txt");
    writeFileSync(outside, "theirs\n");
    // The name a temporary file had when it was `.<name>.<pid>.tmp`: predictable by anyone.
    symlinkSync(outside, path.join(dir, `.openapi.yaml.${process.pid}.tmp`));
    expect(await main(["openapi", "api.yaml", "-o", "openapi.yaml"], host)).toBe(0);
    expect(readFileSync(outside, "utf8")).toBe("theirs\n");
    expect(lstatSync(path.join(dir, "openapi.yaml")).isFile()).toBe(true);
  });

  it("answers every kind of target by what it is, whatever the folder and name (property)", async () => {
    const kinds = ["none", "file", "fifo", "device-link", "file-link", "folder"] as const;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...kinds), fc.stringMatching(/^[a-z][a-z0-9._-]{0,12}$/), fc.boolean(), async (kind, name, nested) => {
        const { dir, host, err } = project(`property-${run++}`);
        const relative = `${nested ? "sub/" : ""}out-${name}`;
        const target = path.join(dir, relative);
        mkdirSync(path.dirname(target), { recursive: true });
        const outside = path.join(dir, "..", `outside-${run}`);
        writeFileSync(outside, "theirs\n");
        if (kind === "file") writeFileSync(target, "old\n");
        if (kind === "fifo") execFileSync("mkfifo", [target]);
        if (kind === "device-link") symlinkSync("/dev/null", target);
        if (kind === "file-link") symlinkSync(outside, target);
        if (kind === "folder") mkdirSync(target);
        const read = kind === "fifo" ? readPipe(target, 10_000) : undefined;
        const code = await main(["openapi", "api.yaml", "-o", relative], host);
        const after = lstatSync(target);
        expect(readFileSync(outside, "utf8")).toBe("theirs\n");
        if (kind === "none" || kind === "file") {
          expect(code).toBe(0);
          expect(after.isFile()).toBe(true);
        } else if (kind === "fifo") {
          expect(after.isFIFO()).toBe(true);
          expect((await read)!.length).toBeGreaterThan(0);
        } else if (kind === "device-link") {
          expect(code).toBe(0);
          expect(after.isSymbolicLink()).toBe(true);
        } else {
          expect(code).toBe(1);
          expect(err()).toContain("[output/special-target]");
          expect(kind === "folder" ? after.isDirectory() : after.isSymbolicLink()).toBe(true);
        }
      }),
      { numRuns: 30 },
    );
  });
});

describe("codegen generate -o: an output folder that is no folder", () => {
  it("refuses a named pipe, a regular file and a link to either, leaving each as it was", async () => {
    const { dir, host, err } = project("generate");
    execFileSync("mkfifo", [path.join(dir, "pipe")]);
    writeFileSync(path.join(dir, "file"), "theirs\n");
    symlinkSync("file", path.join(dir, "file-link"));
    for (const [out, what] of [
      ["pipe", "a named pipe"],
      ["file", "a regular file"],
      ["file-link", "a regular file"],
    ] as const) {
      const before = err().length;
      expect(await main(["api.yaml", "-o", out, "--no-format"], host), out).toBe(1);
      expect(err().slice(before)).toContain(`\`${out}\` is ${what}, not a folder`);
      expect(err().slice(before)).toContain("[output/not-a-folder]");
    }
    expect(lstatSync(path.join(dir, "pipe")).isFIFO()).toBe(true);
    expect(readFileSync(path.join(dir, "file"), "utf8")).toBe("theirs\n");
    expect(lstatSync(path.join(dir, "file-link")).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(["api.yaml", "file", "file-link", "pipe"]);
  });
});

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./support/fixtures.js";

/** A port that is free right now on 127.0.0.1. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

let demo: ChildProcess | undefined;
afterAll(() => {
  demo?.kill("SIGINT");
});

describe("npm run demo", () => {
  it("serves the blog example, and the curl lines it prints work as printed", async () => {
    const port = await freePort();
    demo = spawn(process.execPath, [path.join(ROOT, "scripts/demo.js")], { cwd: ROOT, env: { ...process.env, PORT: String(port) } });
    let printed = "";
    demo.stdout!.setEncoding("utf8");
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`demo did not start: ${printed}`)), 15_000);
      demo!.stdout!.on("data", (text: string) => {
        printed += text;
        if (printed.includes("Ctrl-C stops the server.")) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const commands = printed
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line.startsWith("TOKEN=") || line.startsWith("curl "));
    expect(commands).toHaveLength(4);
    // Run the printed lines exactly as a user would paste them, in one shell.
    const script = commands.map((c, i) => (i === 0 ? c : `echo "<<${i}>>"; ${c}; echo`)).join("\n");
    const output = execFileSync("bash", ["-c", `set -e\n${script}\necho "token=$TOKEN"`], { encoding: "utf8" });
    const [, created, read, refused] = output.split(/<<\d>>\n/);
    expect(JSON.parse(created!)).toMatchObject({
      id: 1,
      title: "Hello",
      status: "draft",
      links: [{ rel: "self", href: "/articles/1" }, { rel: "edit" }, { rel: "cancel" }],
    });
    expect(JSON.parse(read!)).toMatchObject({ id: 1, title: "Hello" });
    expect(refused).toMatch(/^HTTP\/1\.1 401 /);
    expect(refused).toMatch(/WWW-Authenticate: Bearer/i);
    expect(output).toMatch(/token=\S{20,}/);
  }, 30_000);
});

#!/usr/bin/env node
// npm run demo: generate the bundled blog example into out/blog (to read), then serve it on
// 127.0.0.1:8080 with a demo user, and print the curl lines that get a token and call a
// protected route. Ctrl-C stops it.
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = path.join(root, "bin/codegen.js");
const declaration = "fixtures/valid/blog/declaration.yaml";
const port = process.env.PORT ?? "8080";
const base = `http://127.0.0.1:${port}`;

const generated = spawnSync(process.execPath, [bin, "generate", declaration, "-o", "out/blog"], { cwd: root, stdio: "inherit" });
if (generated.status !== 0) process.exit(generated.status ?? 1);

const server = spawn(process.execPath, [bin, "serve", declaration, "--port", port, "--user", "demo:demo-password:articles:read,articles:write,authors:write"], {
  cwd: root,
  stdio: ["ignore", "pipe", "inherit"],
});
server.stdout.setEncoding("utf8");
server.stdout.on("data", (text) => {
  process.stdout.write(text);
  if (!text.startsWith("serving")) return;
  console.log(`
The generated code is in out/blog/. The server keeps its data in memory. Try, in another terminal:

  # 1. Get a token for the demo user with the scope to write articles (password flow, strict form):
  TOKEN=$(curl -s -X POST ${base}/token -d 'grant_type=password&username=demo&password=demo-password&scope=articles:write' | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).access_token')

  # 2. Create an article with it (a protected route: without the token this answers 401):
  curl -s -X POST ${base}/articles -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"title": "Hello"}'

  # 3. Read it back: reads are optional-access, no token needed. Note the links and the status.
  curl -s ${base}/articles/1

  # 4. Without a token, writing is refused:
  curl -si -X DELETE ${base}/articles/1

Ctrl-C stops the server.`);
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code) => process.exit(code ?? 0));

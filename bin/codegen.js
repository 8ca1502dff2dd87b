#!/usr/bin/env node
import { main } from "../dist/cli.js";
import { nodeHost } from "../dist/host.js";

// Why: a reader that stops early (`codegen openapi api.yaml | head`) closes the pipe; the next
// write fails with EPIPE, which Node raises as an unhandled error with a stack trace. A command
// whose output nobody reads any more ends quietly instead, as `cat` does (exit code 0).
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}

process.exitCode = await main(process.argv.slice(2), nodeHost());

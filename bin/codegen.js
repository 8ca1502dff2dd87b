#!/usr/bin/env node
import { main } from "../dist/cli.js";
import { nodeHost } from "../dist/host.js";

process.exitCode = await main(process.argv.slice(2), nodeHost());

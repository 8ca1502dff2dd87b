// Preloaded (--require) into a measured Node process when /usr/bin/time is missing: writes the
// process's peak resident memory (KB) into the file named by CODEGEN_BENCH_RSS as it exits.
process.on("exit", () => require("node:fs").writeFileSync(process.env.CODEGEN_BENCH_RSS, String(process.resourceUsage().maxRSS)));

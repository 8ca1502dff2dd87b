// Preloaded with --require by test/compile/generator-work.test.ts: at exit, print the packages the process
// loaded (Node's CommonJS cache lists each, whether imported from ESM or required).
process.on("exit", () => {
  const names = Object.keys(require.cache)
    .map((file) => /node_modules[\\/]((@[^\\/]+[\\/])?[^\\/]+)/.exec(file)?.[1])
    .filter(Boolean)
    .map((name) => name.replace(/\\/g, "/"));
  process.stderr.write(`LOADED ${JSON.stringify([...new Set(names)])}\n`);
});

// The project's own lint (npm run lint): ESLint's and typescript-eslint's recommended rules, on
// the code this repository owns. Generated code and the runtime templates are checked by
// tsc --strict in the golden tests instead.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "fixtures/", "templates/", "node_modules/", "out/", "bench/results/", "bench/.work/", "examples/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        Buffer: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        performance: "readonly",
        fetch: "readonly",
        AbortSignal: "readonly",
        structuredClone: "readonly",
        TextEncoder: "readonly",
        TextDecoder: "readonly",
        AbortController: "readonly",
        Response: "readonly",
        Request: "readonly",
        Headers: "readonly",
        queueMicrotask: "readonly",
        setImmediate: "readonly",
        global: "readonly",
        globalThis: "readonly",
        __dirname: "readonly",
        require: "readonly",
        module: "writable",
      },
    },
  },
  {
    rules: {
      // Intended: control characters are matched to neutralise them in messages and comments.
      "no-control-regex": "off",
      // `const { a: _a, ...rest } = x` omits a key: the underscore says so.
      "@typescript-eslint/no-unused-vars": ["error", { varsIgnorePattern: "^_", argsIgnorePattern: "^_", ignoreRestSiblings: true }],
    },
  },
  // Tests build deliberately malformed inputs by casting.
  { files: ["test/**"], rules: { "@typescript-eslint/no-explicit-any": "off" } },
  // A CommonJS preload for `node -r`.
  { files: ["**/*.cjs"], rules: { "@typescript-eslint/no-require-imports": "off" } },
);

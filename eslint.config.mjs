// ESLint for the JavaScript (tox -e lint-js): the mistakes ruff catches in the Python, without a plugin to install.
const globals = Object.fromEntries(
  [
    "console",
    "process",
    "URL",
    "TextEncoder",
    "TextDecoder",
    "structuredClone",
    "performance",
    "setTimeout",
    "clearTimeout",
    "ReadableStream",
    "globalThis",
  ].map((name) => [name, "readonly"]),
);

export default [
  {
    files: ["**/*.js", "**/*.mjs"],
    ignores: ["**/node_modules/**", ".tox/**"],
    languageOptions: { ecmaVersion: 2023, sourceType: "module", globals },
    rules: {
      "no-undef": "error",
      "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none" }],
      "no-unreachable": "error",
      "no-dupe-keys": "error",
      "no-duplicate-case": "error",
      "no-redeclare": "error",
      "no-self-assign": "error",
      "no-shadow-restricted-names": "error",
      "no-unsafe-finally": "error",
      "no-constant-condition": ["error", { checkLoops: false }],
      "no-empty": ["error", { allowEmptyCatch: true }],
      "no-fallthrough": "error",
      "no-prototype-builtins": "error",
      "no-var": "error",
      "prefer-const": "error",
      eqeqeq: ["error", "always"],
    },
  },
];

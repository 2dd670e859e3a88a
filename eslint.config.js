// ESLint: recommended JS and typescript-eslint rules; formatting is Prettier's job.
import js from "@eslint/js";
import react from "eslint-plugin-react";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["generated/**", "**/dist/**", "**/node_modules/**", "test-artifacts/**"] },
  {
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { module: "writable", require: "readonly" } },
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        console: "readonly",
        process: "readonly",
        Buffer: "readonly",
        URL: "readonly",
        fetch: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        AbortSignal: "readonly",
        Headers: "readonly",
        TextEncoder: "readonly",
        TextDecoder: "readonly",
        structuredClone: "readonly",
      },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Scripts the hosted checkout serves to browsers: plain ES5-style scripts with browser globals.
    files: ["server/src/checkout/assets/**/*.js"],
    languageOptions: {
      sourceType: "script",
      globals: { document: "readonly", window: "readonly", navigator: "readonly", performance: "readonly" },
    },
    rules: {
      "no-redeclare": "off",
      "@typescript-eslint/no-unused-vars": ["error", { caughtErrors: "none" }],
    },
  },
  {
    // The dashboard's web app (React): the rules of hooks, and React Compiler's checks; and every
    // element of a list with its key, which React's development build warns of at run time and the
    // browser tests, driving the production build as it ships, no longer see (decision 0061).
    files: ["dashboard/src/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks, react },
    rules: {
      ...reactHooks.configs["recommended-latest"].rules,
      "react-hooks/exhaustive-deps": "error",
      "react/jsx-key": ["error", { checkFragmentShorthand: true, warnOnDuplicates: true }],
    },
  },
  {
    files: ["**/*.test.ts", "server/test/**", "contract-tests/**", "fake-bank/test/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);

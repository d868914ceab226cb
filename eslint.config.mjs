// ESLint flat config: @eslint/js + typescript-eslint + React hooks rules.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";

export default tseslint.config(
  { ignores: [".next/**", "node_modules/**", "server/db/generated/**", ".clutch/**", "test-results/**", "playwright-report/**", "next-env.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { ...globals.browser, ...globals.node },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    files: ["components/**/*.{ts,tsx}"],
    rules: {
      // Components import only from lib/ and components/ (docs/architecture.md "Layers").
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["@/server/*", "@/server", "**/server/**", "@/app/*", "**/app/**"], message: "components may import only from lib/ and components/" }] },
      ],
    },
  },
);

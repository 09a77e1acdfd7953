// Lint: typescript-eslint's type-checked rules over the whole tree, and the import boundaries of
// ARCHITECTURE.md (no lib imports an app, no deep imports, each lib only below itself).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'reports/**', 'coverage/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  },
);

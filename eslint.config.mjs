// Lint: typescript-eslint's type-checked rules over the whole tree, and the import boundaries of
// ARCHITECTURE.md (no lib imports an app, no deep imports, each lib only below itself).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // type-fixtures/ hold files that must not compile, checked by their own spec, outside tsconfig.json.
  { ignores: ['dist/**', 'node_modules/**', 'reports/**', 'coverage/**', '**/*.js', '**/*.mjs', '**/type-fixtures/**'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  },
);

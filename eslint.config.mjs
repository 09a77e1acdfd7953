// Lint: typescript-eslint's type-checked rules over the whole tree, and the import boundaries of
// ARCHITECTURE.md (no lib imports an app, no deep imports, each lib only below itself).
import tseslint from 'typescript-eslint';

/** The libraries from the ground up; each may import only those before it in this list. */
const LAYERS = [
  'machinery',
  'cri',
  'options',
  'storage',
  'api',
  'client',
  'delegated-auth',
  'informers',
  'runtime',
  'node-simulation',
  'controllers',
  'apiserver',
  'scaffold',
];

/** Imports every file may not make: into an app, into another lib's sources, past a lib's entry points. */
const EVERYWHERE = [
  { group: ['**/apps/*/src', '**/apps/*/src/**'], message: 'Nothing imports an app: move what is shared into a library.' },
  // @svc/machinery/meta, the meta/v1 wire types alone, is the entry a browser app (the console) can take.
  {
    group: ['@svc/*/*', '!@svc/*/testing', '!@svc/machinery/meta'],
    message: "Import a library through its entry point ('@svc/<lib>', '@svc/<lib>/testing' or '@svc/machinery/meta').",
  },
  { group: ['**/libs/*/src', '**/libs/*/src/**'], message: "Import a library through its alias ('@svc/<lib>'), not by path." },
];

/**
 * Imports some libraries may not make besides those above them: the built-in controllers are
 * written with the operator framework alone, as a user's operator is, so Nest stays out of them.
 */
const OFF_LIMITS = {
  controllers: [{ group: ['@nestjs/*'], message: 'The built-in controllers use the framework (@svc/runtime) alone, as operators do: no Nest.' }],
};

/** The rule for files of one library: the libraries above it are out of reach, and `extraPaths` too. */
function layerRule(lib, { tests, extraPaths = [] }) {
  const above = LAYERS.slice(LAYERS.indexOf(lib) + 1);
  const message = (name) => `${lib} sits below ${name} and may not import it${tests && name === 'apiserver' ? ' (tests may use @svc/apiserver/testing)' : ''}.`;
  // Tests may start the API server's test environment, a testing kit above every library.
  const paths = [...above.map((name) => ({ name: `@svc/${name}`, message: message(name) })), ...extraPaths];
  const patterns = above.filter((name) => !(tests && name === 'apiserver')).map((name) => ({ group: [`@svc/${name}/*`], message: message(name) }));
  return ['error', { paths, patterns: [...EVERYWHERE, ...patterns, ...(OFF_LIMITS[lib] ?? [])] }];
}

const TEST_FILES = ['**/*.spec.ts', '**/testing/**'];

/** Admission reads what it needs through the registries, from the watch cache: never from the store beside it. */
const ADMISSION_READS = [
  { name: '@svc/storage', message: 'Admission reads through the registries (registry/admission-reads.ts), so the watch cache is the one read model.' },
];

export default tseslint.config(
  // type-fixtures/ hold files that must not compile, checked by their own spec, outside tsconfig.json.
  { ignores: ['dist/**', 'build/**', 'node_modules/**', 'reports/**', 'coverage/**', '**/*.js', '**/*.mjs', '**/type-fixtures/**'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      'no-restricted-imports': ['error', { patterns: EVERYWHERE }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // An async method may keep a Promise-returning contract without awaiting anything itself.
      '@typescript-eslint/require-await': 'off',
      // Walks over linked structures start from `this`.
      '@typescript-eslint/no-this-alias': ['error', { allowedNames: ['node', 'types', 'p'] }],
      // Rethrowing what a catch or a settled result holds is not throwing a non-error.
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // `interface Options extends OptionsOf<typeof FLAGS> {}` names a derived type.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  {
    // Tests read JSON bodies and fixtures as they come: the any-typed reads are what they check.
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
  ...LAYERS.flatMap((lib) => [
    { files: [`libs/${lib}/**/*.ts`], rules: { 'no-restricted-imports': layerRule(lib, { tests: false }) } },
    { files: TEST_FILES.map((pattern) => `libs/${lib}/${pattern}`), rules: { 'no-restricted-imports': layerRule(lib, { tests: true }) } },
  ]),
  {
    files: ['libs/apiserver/src/admission/**/*.ts'],
    ignores: TEST_FILES.map((pattern) => `libs/apiserver/src/admission/${pattern}`),
    rules: { 'no-restricted-imports': layerRule('apiserver', { tests: false, extraPaths: ADMISSION_READS }) },
  },
);

// One Jest run covers unit tests beside the code (*.spec.ts) and end-to-end tests in test/ (*.e2e-spec.ts).
const aliases = {};
for (const lib of [
  'api',
  'machinery',
  'options',
  'storage',
  'client',
  'delegated-auth',
  'informers',
  'node-simulation',
  'runtime',
  'controllers',
  'apiserver',
  'scaffold',
  'cri',
]) {
  aliases[`^@svc/${lib}$`] = `<rootDir>/libs/${lib}/src/index.ts`;
}
// Testing kits: the framework's helpers and the API server's test environment, for operator authors' tests.
aliases['^@svc/runtime/testing$'] = '<rootDir>/libs/runtime/src/testing/index.ts';
aliases['^@svc/controllers/testing$'] = '<rootDir>/libs/controllers/src/testing/index.ts';
aliases['^@svc/informers/testing$'] = '<rootDir>/libs/informers/src/testing/index.ts';
aliases['^@svc/apiserver/testing$'] = '<rootDir>/libs/apiserver/src/testing/index.ts';
aliases['^@svc/cri/testing$'] = '<rootDir>/libs/cri/src/testing/index.ts';
aliases['^@svc/storage/testing$'] = '<rootDir>/libs/storage/src/testing/index.ts';

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test', '<rootDir>/examples'],
  testRegex: '.*\\.(spec|e2e-spec)\\.ts$',
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: aliases,
  testTimeout: 30000,
  maxWorkers: 2,
  globalSetup: '<rootDir>/test/global-setup.js',
  globalTeardown: '<rootDir>/test/global-teardown.js',
  testSequencer: '<rootDir>/test/sequencer.js',
};

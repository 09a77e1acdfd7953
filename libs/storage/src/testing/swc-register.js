// Lets plain `node` load the TypeScript sources (for child processes of tests and for benchmarks) by
// compiling each .ts file on require with the project's own @swc/core, the same compiler Jest uses.
'use strict';
const { readFileSync } = require('node:fs');
const { transformSync } = require('@swc/core');

if (!require.extensions['.ts']) {
  require.extensions['.ts'] = function compileTypeScript(module, filename) {
    const { code } = transformSync(readFileSync(filename, 'utf8'), {
      filename,
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
        keepClassNames: true,
      },
      module: { type: 'commonjs' },
      sourceMaps: 'inline',
    });
    module._compile(code, filename);
  };
}

#!/usr/bin/env node
// Runs the operator from its TypeScript sources with plain `node`: .ts files are compiled on
// require by the project's @swc/core (the compiler Jest uses), and the `@svc/<lib>` aliases of
// tsconfig.base.json resolve to libs/<lib>/src.
'use strict';
const Module = require('node:module');
const path = require('node:path');

require('../../libs/storage/src/testing/swc-register');

const libs = path.resolve(__dirname, '..', '..', 'libs');
const resolve = Module._resolveFilename;
Module._resolveFilename = function resolveAlias(request, ...rest) {
  const alias = /^@svc\/([a-z-]+)$/.exec(request);
  return resolve.call(this, alias ? path.join(libs, alias[1], 'src', 'index.ts') : request, ...rest);
};

require('./main.ts')
  .main(process.argv.slice(2))
  .then(() => process.exit(0))
  .catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });

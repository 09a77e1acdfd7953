// Runs the storage benchmark straight from the TypeScript sources: node bench/storage/run.js
'use strict';
require('../../libs/storage/src/testing/swc-register');
require('./index.ts')
  .run()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });

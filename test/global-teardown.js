'use strict';
// Removes what the run's test files shared through the global setup: the libraries packed once.
const fs = require('node:fs');

module.exports = async function globalTeardown() {
  const dir = process.env.SVC_TEST_PACKED_LIBRARIES_DIR;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
};

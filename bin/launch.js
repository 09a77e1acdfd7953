'use strict';
// Each executable runs the compiled entry of its app. The build runs on install (the `prepare` script),
// so a missing entry means the install step was skipped or the build failed.
const path = require('node:path');
const fs = require('node:fs');

function launch(app) {
  const entry = path.join(__dirname, '..', 'dist', 'apps', app, 'src', 'main.js');
  if (!fs.existsSync(entry)) {
    process.stderr.write(`svc-${app}: ${entry} is missing; run "npm install" (or "npm run build") first\n`);
    process.exit(1);
  }
  require(entry);
}

module.exports = { launch };

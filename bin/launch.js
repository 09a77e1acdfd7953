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
  stopWithLauncher();
  require(entry);
}

// A child of `npm start`'s launcher holds an IPC channel to it (and nothing else uses it): when the
// channel closes, the launcher is gone, however it went, and the child stops as on SIGTERM.
function stopWithLauncher() {
  if (!process.channel) return;
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

module.exports = { launch };

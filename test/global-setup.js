'use strict';
// End-to-end tests run the real executables, which run the compiled tree in dist/. Rebuild it when a
// source file is newer than the last build, so that a test never runs stale code.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const marker = path.join(root, 'dist', '.build-stamp');

function newestSource(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

module.exports = async function globalSetup() {
  const sources = Math.max(...['apps', 'libs', 'bench'].map((d) => newestSource(path.join(root, d))));
  const built = fs.existsSync(marker) ? fs.statSync(marker).mtimeMs : 0;
  if (sources > built) {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  }
};

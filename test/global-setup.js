'use strict';
// End-to-end tests run the real executables, which run the compiled tree in dist/. Rebuild it when a
// source file is newer than the last build, so that a test never runs stale code.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.join(__dirname, '..');
const marker = path.join(root, 'dist', '.build-stamp');

function newestSource(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (/\.(ts|tsx|css|html)$/.test(entry.name)) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

// Only a run that may include end-to-end tests needs the build: a run filtered to library folders
// (`npx jest libs/storage`) skips it.
function mayRunEndToEnd(globalConfig) {
  const patterns = globalConfig.testPathPatterns;
  if (!patterns || !patterns.isSet()) return true;
  return patterns.patterns.some((p) => /(^|\/)(test(\/|$)|e2e)/.test(p) || p === '.' || p === '');
}

module.exports = async function globalSetup(globalConfig) {
  // Jest prints nothing of a skipped suite, so say here why the MongoDB contract suite is skipped.
  if (!process.env.MONGODB_URI) {
    console.log('\nMongoDB storage backend tests are skipped: set MONGODB_URI to a replica set to run them.');
  }
  if (!mayRunEndToEnd(globalConfig)) return;
  // The libraries packed once for the whole run, by the first test file that asks
  // (test/support/packed-libraries.ts); the global teardown removes the directory.
  process.env.SVC_TEST_PACKED_LIBRARIES_DIR = path.join(os.tmpdir(), `svc-packed-libraries-${process.pid}-${Date.now()}`);
  const sources = Math.max(...['apps', 'libs', 'bench'].map((d) => newestSource(path.join(root, d))));
  const built = fs.existsSync(marker) ? fs.statSync(marker).mtimeMs : 0;
  if (sources > built) {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  }
  await probeContainerRuntime(globalConfig);
};

// The container tests need a containerd that can run containers here (root, the packages, overlayfs,
// cgroups, network namespaces). Try once per run; when it fails, every such test file skips with the
// reason (workers inherit the environment variable), instead of failing in its setup.
async function probeContainerRuntime(globalConfig) {
  const patterns = globalConfig.testPathPatterns;
  if (patterns && patterns.isSet() && !patterns.patterns.some((p) => /node-agent|cri|^test\/?$|^\.?$/.test(p))) return;
  const { probeLocalRuntime, RUNTIME_PROBE_VARIABLE } = require(path.join(root, 'dist', 'libs', 'cri', 'src', 'testing', 'index.js'));
  const reason = await probeLocalRuntime();
  if (!reason) return;
  process.env[RUNTIME_PROBE_VARIABLE] = reason;
  console.log(`\nContainer runtime tests are skipped: ${reason}`);
}

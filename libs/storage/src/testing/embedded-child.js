// A separate process holding an embedded store, for the tests that need one:
//   node embedded-child.js open  <dataDir>   try to open the store, print the outcome as JSON, exit
//   node embedded-child.js burst <dataDir>   write without pause, printing "<op> <key> <revision>" after
//                                            each acknowledged write, until killed (or 60 s pass)
'use strict';
require('./swc-register');
const { writeSync } = require('node:fs');
const { EmbeddedStorage } = require('../embedded/embedded-storage.ts');

const [mode, dataDir] = process.argv.slice(2);

function print(line) {
  // Synchronous, so a line printed is a line the parent can read even after kill -9.
  writeSync(1, `${line}\n`);
}

async function burst() {
  const store = EmbeddedStorage.open({ dataDir, compactionIntervalMs: 0 });
  print(`ready ${await store.currentRevision()}`);
  const stopAt = Date.now() + 60_000;
  for (let i = 0; Date.now() < stopAt; i++) {
    const key = `/registry/configmaps/burst/k${i}`;
    const created = await store.create(key, { kind: 'ConfigMap', metadata: { name: `k${i}` }, data: { i: String(i) } });
    print(`ADDED ${key} ${created.metadata.resourceVersion}`);
    if (i > 0 && i % 4 === 0) {
      const previous = `/registry/configmaps/burst/k${i - 1}`;
      const updated = await store.update(previous, { kind: 'ConfigMap', metadata: { name: `k${i - 1}` }, data: { i: 'updated' } });
      print(`MODIFIED ${previous} ${updated.metadata.resourceVersion}`);
    }
  }
  await store.close();
}

if (mode === 'open') {
  try {
    const store = EmbeddedStorage.open({ dataDir, compactionIntervalMs: 0 });
    print(JSON.stringify({ opened: true }));
    store.close().then(() => process.exit(0));
  } catch (error) {
    print(JSON.stringify({ opened: false, code: error.code, message: error.message }));
    process.exit(0);
  }
} else if (mode === 'burst') {
  burst().catch((error) => {
    print(`error ${error.message}`);
    process.exit(1);
  });
} else {
  print(`error unknown mode ${mode}`);
  process.exit(2);
}

#!/usr/bin/env node
'use strict';
// Runs benchmarks by name: `npm run bench -- storage apiserver`; with no name, every benchmark.
// Benchmarks are compiled with the rest of the tree (`npm run build`) and live in dist/bench/<name>/.
const fs = require('node:fs');
const path = require('node:path');

const compiled = path.join(__dirname, '..', 'dist', 'bench');
const available = fs.existsSync(compiled)
  ? fs
      .readdirSync(compiled)
      .filter((name) => fs.existsSync(path.join(compiled, name, 'index.js')))
      .sort()
  : [];

async function main() {
  const wanted = process.argv.slice(2);
  if (available.length === 0) {
    console.error('no compiled benchmarks in dist/bench; run "npm run build" first');
    process.exit(1);
  }
  const unknown = wanted.filter((name) => !available.includes(name));
  if (unknown.length > 0) {
    console.error(`unknown benchmark ${unknown.join(', ')}; available: ${available.join(', ')}`);
    process.exit(2);
  }
  for (const name of wanted.length > 0 ? wanted : available) {
    console.log(`# ${name}`);
    const mod = require(path.join(compiled, name, 'index.js'));
    await mod.run();
    console.log('');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

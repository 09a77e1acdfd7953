'use strict';
// The image's HEALTHCHECK: asks the process the container runs for its /readyz. Which process that is,
// and where it serves, comes from its own command line read with its own flag parser, so the check
// follows --secure-port and --bind-address and knows every default the process knows.
//   exit 0: ready, or a process with no health endpoint; exit 1: not ready or not answering.
const fs = require('node:fs');
const https = require('node:https');
const path = require('node:path');

const options = require(path.join(__dirname, '..', 'dist', 'libs', 'options', 'src'));

/**
 * The flag parser of an executable, found by its name as the options library names it: svc-apiserver's is
 * parseApiServerOptions, svc-node-agent's parseNodeAgentFlags. So a process added to the package is checked
 * without a change here.
 */
function parserOf(executable) {
  const stem = executable.replace(/^svc-/, '').replace(/-/g, '').toLowerCase();
  const names = [`parse${stem}options`, `parse${stem}flags`];
  const found = Object.keys(options).find((key) => names.includes(key.toLowerCase()) && typeof options[key] === 'function');
  return found && options[found];
}

/** The executables the package declares, each on PATH as its bin name. */
const EXECUTABLES = Object.keys(require(path.join(__dirname, '..', 'package.json')).bin ?? {});

/** The executable and its arguments, from the first process of the container that runs one of ours. */
function servedProcess() {
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let argv;
    try {
      argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
    } catch {
      continue; // gone meanwhile
    }
    // `node /usr/local/bin/svc-apiserver --flag ...` (the executable's shebang runs node).
    const at = argv.findIndex((arg) => EXECUTABLES.includes(path.basename(arg).replace(/\.js$/, '')));
    if (at >= 0) return { name: path.basename(argv[at]).replace(/\.js$/, ''), args: argv.slice(at + 1) };
  }
  return undefined;
}

function loopbackFor(bindAddress) {
  if (!bindAddress || bindAddress === '0.0.0.0') return '127.0.0.1';
  if (bindAddress === '::' || bindAddress === '[::]') return '::1';
  return bindAddress.replace(/^\[|\]$/g, '');
}

function main() {
  const served = servedProcess();
  if (!served) {
    console.log('no process with a health endpoint runs here');
    return process.exit(0);
  }
  const parse = parserOf(served.name);
  if (!parse) {
    console.log(`${served.name}: no flag parser for it in the options library`);
    return process.exit(0);
  }
  let outcome;
  try {
    outcome = parse(served.args);
  } catch (error) {
    console.log(`${served.name}: its flags do not parse: ${error.message}`);
    return process.exit(1);
  }
  if (outcome.action !== 'run' || !outcome.options.securePort) {
    console.log(`${served.name} serves no health endpoint`);
    return process.exit(0);
  }
  const { securePort, bindAddress } = outcome.options;
  // The check runs inside the container against the process's own self-signed or configured certificate.
  const request = https.get({ host: loopbackFor(bindAddress), port: securePort, path: '/readyz', rejectUnauthorized: false, timeout: 4000 }, (response) => {
    let body = '';
    response.setEncoding('utf8');
    response.on('data', (chunk) => (body += chunk.slice(0, 4096 - body.length)));
    response.on('end', () => {
      console.log(`${served.name} /readyz: ${response.statusCode} ${body.trim()}`);
      process.exit(response.statusCode === 200 ? 0 : 1);
    });
  });
  request.on('timeout', () => request.destroy(new Error('no answer within 4s')));
  request.on('error', (error) => {
    console.log(`${served.name} /readyz: ${error.message}`);
    process.exit(1);
  });
}

main();

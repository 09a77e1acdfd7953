#!/usr/bin/env node
'use strict';
// `npm start`: the whole control plane on one machine, on the embedded store, with its state under
// ./.data (or $SVC_DATA). Runs the API server, waits until it is ready, then runs the controller
// manager and the scheduler against it. Extra arguments are passed to the API server.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(process.env.SVC_DATA || path.join(__dirname, '..', '.data'));
const port = process.env.SVC_PORT || '6443';
const svcconfig = path.join(root, 'svcconfig');
const children = [];
let stopping = false;

function run(name, args) {
  const child = spawn(process.execPath, [path.join(__dirname, name + '.js'), ...args], { stdio: 'inherit' });
  children.push(child);
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${name} exited (${signal || code}); stopping the control plane`);
      stop(code || 1);
    }
  });
  return child;
}

function stop(code) {
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 200).unref();
  Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.on('exit', r)) : null))).then(() => process.exit(code));
}

process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

fs.mkdirSync(root, { recursive: true });
fs.rmSync(svcconfig, { force: true });
run('svc-apiserver', [
  '--bind-address=127.0.0.1',
  `--secure-port=${port}`,
  '--storage-backend=embedded',
  `--data-dir=${path.join(root, 'store')}`,
  `--cert-dir=${path.join(root, 'certs')}`,
  `--svcconfig-out=${svcconfig}`,
  ...process.argv.slice(2),
]);

const started = Date.now();
const wait = setInterval(() => {
  if (fs.existsSync(svcconfig)) {
    clearInterval(wait);
    run('svc-controller-manager', [`--svcconfig=${svcconfig}`, '--secure-port=0']);
    // The scheduler places pending pods on nodes (`npm run nodes -- --nodes=3` runs simulated ones).
    run('svc-scheduler', [`--svcconfig=${svcconfig}`, '--secure-port=0']);
    console.log(`Control plane running. Use it with:\n  export KUBECONFIG=${svcconfig}\n  kubectl get namespaces`);
  } else if (Date.now() - started > 60000) {
    clearInterval(wait);
    console.error('the API server did not write its client connection file within 60s');
    stop(1);
  }
}, 100);

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

// The node agent: started when a container runtime socket is there ($SVC_CONTAINER_RUNTIME_ENDPOINT,
// else containerd's), serving on loopback; the controller manager gives its Node a pod CIDR.
const runtimeEndpoint = process.env.SVC_CONTAINER_RUNTIME_ENDPOINT || 'unix:///run/containerd/containerd.sock';
const nodeIpamArgs = ['--allocate-node-cidrs', `--cluster-cidr=${process.env.SVC_CLUSTER_CIDR || '10.244.0.0/16'}`];
function startNodeAgent() {
  const socket = runtimeEndpoint.replace(/^unix:\/\//, '');
  if (!fs.existsSync(socket)) {
    console.log(
      `No container runtime at ${runtimeEndpoint}: pods will not run. On Debian, as root: "apt-get install -y containerd runc containernetworking-plugins"` +
        ' (or set SVC_CONTAINER_RUNTIME_ENDPOINT), then npm start again.',
    );
    return;
  }
  const dir = path.join(root, 'node-agent');
  fs.mkdirSync(dir, { recursive: true });
  const config = path.join(dir, 'config.yaml');
  fs.writeFileSync(
    config,
    [
      'apiVersion: nodeagent.config.svc.io/v1beta1',
      'kind: NodeAgentConfiguration',
      'address: 127.0.0.1',
      // The agent serves on loopback only. The API server calls it without a client certificate, and it
      // serves no SubjectAccessReview yet for the Webhook mode to ask: requests are allowed as they come.
      'authentication: { anonymous: { enabled: true } }',
      'authorization: { mode: AlwaysAllow }',
      `staticPodPath: ${JSON.stringify(path.join(dir, 'manifests'))}`,
      '',
    ].join('\n'),
  );
  run('svc-node-agent', [
    `--config=${config}`,
    `--svcconfig=${svcconfig}`,
    `--container-runtime-endpoint=${runtimeEndpoint}`,
    `--root-dir=${path.join(dir, 'root')}`,
    `--cert-dir=${path.join(dir, 'pki')}`,
    '--node-ip=127.0.0.1',
  ]);
}

fs.mkdirSync(root, { recursive: true });
fs.rmSync(svcconfig, { force: true });
run('svc-apiserver', [
  '--bind-address=127.0.0.1',
  `--secure-port=${port}`,
  '--storage-backend=embedded',
  `--data-dir=${path.join(root, 'store')}`,
  `--cert-dir=${path.join(root, 'certs')}`,
  `--svcconfig-out=${svcconfig}`,
  '--nodeagent-preferred-address-types=InternalIP',
  ...process.argv.slice(2),
]);

const started = Date.now();
const wait = setInterval(() => {
  if (fs.existsSync(svcconfig)) {
    clearInterval(wait);
    run('svc-controller-manager', [`--svcconfig=${svcconfig}`, '--secure-port=0', ...nodeIpamArgs]);
    // The scheduler places pending pods on nodes (`npm run nodes -- --nodes=3` runs simulated ones).
    run('svc-scheduler', [`--svcconfig=${svcconfig}`, '--secure-port=0']);
    startNodeAgent();
    console.log(`Control plane running. Use it with:\n  export KUBECONFIG=${svcconfig}\n  kubectl get namespaces`);
  } else if (Date.now() - started > 60000) {
    clearInterval(wait);
    console.error('the API server did not write its client connection file within 60s');
    stop(1);
  }
}, 100);

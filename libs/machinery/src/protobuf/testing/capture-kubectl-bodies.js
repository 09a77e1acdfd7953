// Records the request bodies kubectl sends for `kubectl create ...`, so the decoder can be tested
// against real client bytes. Not part of the test suite: run it by hand with
//   node libs/machinery/src/protobuf/testing/capture-kubectl-bodies.js
// It writes one <name>.bin per command beside itself.
'use strict';
const { createServer } = require('node:http');
const { execFile } = require('node:child_process');
const { mkdtempSync, writeFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const { tmpdir } = require('node:os');

const commands = [
  ['namespace', ['create', 'namespace', 'demo']],
  ['secret', ['create', 'secret', 'generic', 's', '--from-literal=a=b', '-n', 'default']],
  ['service-account', ['create', 'serviceaccount', 'sa1', '-n', 'default']],
  ['service', ['create', 'service', 'clusterip', 'web', '--tcp=80:8080', '-n', 'default']],
  ['config-map', ['create', 'configmap', 'cm', '--from-literal=k=v', '-n', 'default']],
  ['namespace-saved', ['create', 'namespace', 'saved', '--save-config']],
  [
    'secret-typed',
    [
      'create',
      'secret',
      'generic',
      'creds',
      '--type=kubernetes.io/basic-auth',
      '--from-literal=username=admin',
      '--from-literal=password=s3cr3t',
      '-n',
      'team-a',
    ],
  ],
  // Bytes that are not UTF-8 go to binaryData.
  [
    'config-map-binary',
    ['create', 'configmap', 'bin', '--from-file=blob=' + join(tmpdir(), 'kubectl-capture-blob'), '--from-literal=plain=text', '-n', 'default'],
  ],
  ['service-node-port', ['create', 'service', 'nodeport', 'np', '--tcp=5678:http', '--node-port=30080', '-n', 'default']],
  ['service-external-name', ['create', 'service', 'externalname', 'ext', '--external-name=example.com', '-n', 'default']],
];

const captured = [];
const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks);
    process.stderr.write(`${request.method} ${request.url} ${request.headers['content-type'] ?? ''} ${body.length}\n`);
    if (request.method === 'POST') {
      captured.push(body);
      // Answer in JSON, which kubectl accepts for any object it posted.
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ apiVersion: 'v1', kind: 'Status', status: 'Success' }));
      return;
    }
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ apiVersion: 'v1', kind: 'Status', status: 'Failure', code: 404, reason: 'NotFound' }));
  });
});

writeFileSync(join(tmpdir(), 'kubectl-capture-blob'), Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x41]));

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-capture-'));
  const kubeconfig = join(dir, 'config');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "http://127.0.0.1:' + port + '"}}]',
      'users: [{name: u, user: {}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
      '',
    ].join('\n'),
  );
  const run = async () => {
    for (const [name, args] of commands) {
      const before = captured.length;
      await new Promise((resolve) => {
        execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { env: { ...process.env, HOME: dir } }, (error, stdout, stderr) => {
          process.stderr.write(`kubectl ${args.join(' ')}: ${stdout}${stderr}`);
          resolve();
        });
      });
      if (captured.length > before) writeFileSync(join(__dirname, `${name}.bin`), captured[captured.length - 1]);
    }
    rmSync(dir, { recursive: true, force: true });
    rmSync(join(tmpdir(), 'kubectl-capture-blob'), { force: true });
    server.close();
  };
  void run();
});

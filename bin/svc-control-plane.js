#!/usr/bin/env node
'use strict';
// `npm start`: the whole control plane on one machine, on the embedded store, with its state under
// ./.data (or $SVC_DATA). Runs the API server, waits until it is ready, then runs the controller
// manager and the scheduler against it. Extra arguments are passed to the API server.
// Secure by default: Node and RBAC authorization; the written connection file authenticates as an administrator (a client
// certificate in system:masters); the controller manager, the scheduler, the node agent and the service
// proxy each get a connection file of their own identity (system:kube-controller-manager,
// system:kube-scheduler, system:node:<host>, system:kube-proxy), bound to their roles;
// service account tokens are signed with a key generated on first start.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { nodeAgentDnsConfig, startClusterDns } = require('./cluster-dns');

const root = path.resolve(process.env.SVC_DATA || path.join(__dirname, '..', '.data'));
const port = process.env.SVC_PORT || '6443';
const svcconfig = path.join(root, 'svcconfig');
const certDir = path.join(root, 'certs');
// The node agent's Node is named after this machine, as a kubelet's is; it acts as that node only
// (system:node:<name> in system:nodes), so the Node authorizer and NodeRestriction hold it to its pods.
const nodeName = require('node:os').hostname().toLowerCase();
const identities = {
  controllerManager: { path: path.join(root, 'controller-manager.svcconfig'), user: 'system:kube-controller-manager' },
  scheduler: { path: path.join(root, 'scheduler.svcconfig'), user: 'system:kube-scheduler' },
  nodeAgent: { path: path.join(root, 'node-agent.svcconfig'), user: `system:node:${nodeName}`, groups: ['system:nodes'] },
  proxy: { path: path.join(root, 'proxy.svcconfig'), user: 'system:kube-proxy' },
};
// The API server goes last: the controller manager, the scheduler and the node agent stop first, so
// that they release their leases (a restart then leads at once instead of waiting for them to expire).
const children = { components: [], apiServer: [] };
let stopping = false;

function run(name, args) {
  // The IPC channel is how a child knows the launcher is gone, even after a SIGKILL (bin/launch.js).
  const child = spawn(process.execPath, [path.join(__dirname, name + '.js'), ...args], { stdio: ['inherit', 'inherit', 'inherit', 'ipc'] });
  (name === 'svc-apiserver' ? children.apiServer : children.components).push(child);
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${name} exited (${signal || code}); stopping the control plane`);
      stop(code || 1);
    }
  });
  return child;
}

const COMPONENT_STOP_SECONDS = 20;
const API_SERVER_STOP_SECONDS = 70;

// Sends SIGTERM and waits for the exit; SIGKILL after the deadline.
function stopAll(list, seconds) {
  const running = list.filter((c) => c.exitCode === null && c.signalCode === null);
  return Promise.all(
    running.map(
      (child) =>
        new Promise((resolve) => {
          const kill = setTimeout(() => child.kill('SIGKILL'), seconds * 1000);
          child.once('exit', () => {
            clearTimeout(kill);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}

function stop(code) {
  if (stopping) {
    // A second signal: stop at once.
    for (const child of [...children.components, ...children.apiServer]) child.kill('SIGKILL');
    process.exit(code);
  }
  stopping = true;
  stopAll(children.components, COMPONENT_STOP_SECONDS)
    .then(cleanUpServiceProxy)
    .then(() => stopAll(children.apiServer, API_SERVER_STOP_SECONDS))
    .then(() => process.exit(code));
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(0));
// npm (or a shell) that is itself killed does not pass the signal on: the launcher then finds itself
// handed to another parent, and stops as if told to.
const parentAtStart = process.ppid;
setInterval(() => {
  if (process.ppid !== parentAtStart) stop(0);
}, 500).unref();

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
      // Only client certificates of the node agent client CA (the API server's) and tokens the API
      // server vouches for (TokenReview) get in, for what the API server allows (SubjectAccessReview).
      `authentication: { anonymous: { enabled: false }, webhook: { enabled: true }, x509: { clientCAFile: ${JSON.stringify(nodeAgentPki.caFile)} } }`,
      'authorization: { mode: Webhook }',
      `staticPodPath: ${JSON.stringify(path.join(dir, 'manifests'))}`,
      ...nodeAgentDnsConfig(extraArgs),
      '',
    ].join('\n'),
  );
  run('svc-node-agent', [
    `--config=${config}`,
    `--svcconfig=${identities.nodeAgent.path}`,
    `--hostname-override=${nodeName}`,
    `--container-runtime-endpoint=${runtimeEndpoint}`,
    `--root-dir=${path.join(dir, 'root')}`,
    `--cert-dir=${path.join(dir, 'pki')}`,
    '--node-ip=127.0.0.1',
  ]);
}

// The service proxy routes ClusterIPs and NodePorts on this machine: as root only (it programs the
// kernel's nftables, or iptables without the nft command, which it gets with apt-get when missing).
// It acts as system:kube-proxy (the system:node-proxier role) and answers NodePorts on the host's
// first address (the node agent registers 127.0.0.1, where nftables serves none). Its rules outlive
// a restart of the proxy alone, but not the control plane: stopping removes them (--cleanup).
// SVC_SERVICE_PROXY=off leaves it out.
let serviceProxyStarted = false;
function cleanUpServiceProxy() {
  if (!serviceProxyStarted) return;
  require('node:child_process').spawnSync(process.execPath, [path.join(__dirname, 'svc-proxy.js'), '--cleanup'], { stdio: 'ignore', timeout: 30_000 });
}
function startServiceProxy() {
  if (process.env.SVC_SERVICE_PROXY === 'off') return;
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    console.log('Not root: the service proxy (svc-proxy) does not start, so ClusterIPs and NodePorts do not route; run npm start as root.');
    return;
  }
  const exists = (file) => ['/usr/sbin', '/sbin', '/usr/bin'].some((dir) => fs.existsSync(path.join(dir, file)));
  if (!exists('nft') && fs.existsSync('/usr/bin/apt-get')) {
    console.log('Installing nftables and conntrack for the service proxy');
    const apt = (args) =>
      require('node:child_process').spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=600', ...args], {
        stdio: 'ignore',
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      }).status;
    if (apt(['install', '-y', '--no-install-recommends', 'nftables', 'conntrack']) !== 0) {
      apt(['update']);
      apt(['install', '-y', '--no-install-recommends', 'nftables', 'conntrack']);
    }
  }
  if (!exists('nft') && !exists('iptables-restore')) {
    console.log(
      'Neither nft nor iptables is installed: the service proxy does not start. On Debian, as root: "apt-get install -y nftables conntrack", then npm start again.',
    );
    return;
  }
  const hostIp = Object.values(require('node:os').networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal);
  run('svc-proxy', [
    `--svcconfig=${identities.proxy.path}`,
    `--hostname-override=${nodeName}`,
    `--cluster-cidr=${process.env.SVC_CLUSTER_CIDR || '10.244.0.0/16'}`,
    '--healthz-bind-address=127.0.0.1:10256',
    '--metrics-bind-address=127.0.0.1:10249',
    ...(hostIp ? [`--bind-address=${hostIp.address}`] : []),
  ]);
  serviceProxyStarted = true;
}

// Audit and encryption at rest, on unless the arguments configure them. The policy follows the one
// Kubernetes' GCE clusters run: Secrets and ConfigMaps (and token requests and reviews) at Metadata
// only, since they hold credentials; health, events and lease renewals not at all; reads without
// their responses. The encryption key is made once and kept: Secrets written with it need it to read.
function securityDefaults(args) {
  const crypto = require('node:crypto');
  const given = (flag) => args.some((a) => a === flag || a.startsWith(`${flag}=`));
  const defaults = [];
  if (!given('--audit-policy-file')) {
    const policy = path.join(root, 'audit-policy.yaml');
    if (!fs.existsSync(policy)) fs.writeFileSync(policy, DEFAULT_AUDIT_POLICY, { mode: 0o600 });
    defaults.push(`--audit-policy-file=${policy}`);
    if (!given('--audit-log-path') && !given('--audit-webhook-config-file')) {
      defaults.push(`--audit-log-path=${path.join(root, 'audit', 'audit.log')}`, '--audit-log-maxsize=100', '--audit-log-maxbackup=10', '--audit-log-compress');
    }
  }
  if (!given('--encryption-provider-config')) {
    const config = path.join(root, 'encryption-config.yaml');
    if (!fs.existsSync(config)) {
      const secret = crypto.randomBytes(32).toString('base64');
      const text = [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: EncryptionConfiguration',
        'resources:',
        '  - resources: [secrets]',
        '    providers:',
        '      - aescbc:',
        '          keys:',
        `            - name: key-${new Date().toISOString().slice(0, 10)}`,
        `              secret: ${secret}`,
        '      # Secrets stored before encryption was on still read.',
        '      - identity: {}',
        '',
      ].join('\n');
      fs.writeFileSync(config, text, { mode: 0o600, flag: 'wx' });
    }
    defaults.push(`--encryption-provider-config=${config}`);
  }
  return defaults;
}

const DEFAULT_AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/livez*", "/readyz*", "/version", "/metrics", "/openapi*"]
  - level: None
    resources: [{ group: "", resources: ["events"] }, { group: "events.k8s.io", resources: ["events"] }]
  - level: None
    verbs: ["get", "update", "watch"]
    resources: [{ group: "coordination.k8s.io", resources: ["leases"] }]
  - level: Request
    userGroups: ["system:nodes"]
    verbs: ["update", "patch"]
    resources: [{ group: "", resources: ["nodes/status", "pods/status"] }]
  - level: Metadata
    resources:
      - group: ""
        resources: ["secrets", "configmaps", "serviceaccounts/token"]
      - group: "authentication.k8s.io"
        resources: ["tokenreviews"]
  - level: Request
    verbs: ["get", "list", "watch"]
    resources: [{ group: "" }, { group: "apps" }, { group: "batch" }, { group: "coordination.k8s.io" }, { group: "discovery.k8s.io" }, { group: "networking.k8s.io" }, { group: "policy" }, { group: "rbac.authorization.k8s.io" }, { group: "scheduling.k8s.io" }, { group: "storage.k8s.io" }, { group: "apiextensions.k8s.io" }]
  - level: RequestResponse
    resources: [{ group: "" }, { group: "apps" }, { group: "batch" }, { group: "coordination.k8s.io" }, { group: "discovery.k8s.io" }, { group: "networking.k8s.io" }, { group: "policy" }, { group: "rbac.authorization.k8s.io" }, { group: "scheduling.k8s.io" }, { group: "storage.k8s.io" }, { group: "apiextensions.k8s.io" }]
  - level: Metadata
`;

fs.mkdirSync(root, { recursive: true, mode: 0o700 });
// The service account token signing key, made once and kept with the certificates.
const serviceAccountKey = path.join(certDir, 'service-account.key');
if (!fs.existsSync(serviceAccountKey)) {
  const { privateKey } = require('node:crypto').generateKeyPairSync('ec', { namedCurve: 'P-256' });
  fs.mkdirSync(certDir, { recursive: true });
  fs.writeFileSync(serviceAccountKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
}
fs.rmSync(svcconfig, { force: true });
const extraArgs = process.argv.slice(2);

const distApiServer = path.join(__dirname, '..', 'dist', 'libs', 'apiserver', 'src', 'index.js');
// The API server's client certificate for node agents (Kubernetes' apiserver-kubelet-client), issued
// anew on each start by a CA of its own that the node agent trusts, in system:masters (the group
// kubeadm gave it), so that the agent's SubjectAccessReviews allow it under any authorization mode.
const nodeAgentPki = {
  caDir: path.join(root, 'node-agent', 'client-ca'),
  caFile: path.join(root, 'node-agent', 'client-ca', 'client-ca.crt'),
  cert: path.join(certDir, 'nodeagent-client.crt'),
  key: path.join(certDir, 'nodeagent-client.key'),
};
async function ensureNodeAgentClientCertificate() {
  const { ensureClientCa, issueClientCertificate } = require(distApiServer);
  fs.mkdirSync(certDir, { recursive: true });
  const ca = await ensureClientCa(nodeAgentPki.caDir);
  const issued = await issueClientCertificate(ca, 'svc-apiserver-nodeagent-client', ['system:masters']);
  fs.writeFileSync(nodeAgentPki.key, issued.keyPem, { mode: 0o600 });
  fs.writeFileSync(nodeAgentPki.cert, issued.certPem, { mode: 0o644 });
}

ensureNodeAgentClientCertificate().then(startControlPlane, (error) => {
  console.error(`could not make the API server's client certificate for node agents: ${error.message}`);
  process.exit(1);
});

function startControlPlane() {
  run('svc-apiserver', [
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    '--storage-backend=embedded',
    `--data-dir=${path.join(root, 'store')}`,
    `--cert-dir=${certDir}`,
    `--svcconfig-out=${svcconfig}`,
    '--nodeagent-preferred-address-types=InternalIP',
    '--authorization-mode=Node,RBAC',
    `--service-account-signing-key-file=${serviceAccountKey}`,
    `--service-account-key-file=${serviceAccountKey}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--nodeagent-client-certificate=${nodeAgentPki.cert}`,
    `--nodeagent-client-key=${nodeAgentPki.key}`,
    ...securityDefaults(extraArgs),
    ...extraArgs,
  ]);

  // Each component's identity, from the API server's own client CA.
  async function writeIdentities() {
    const { writeIdentityConnectionFile } = require(distApiServer);
    for (const identity of Object.values(identities)) {
      await writeIdentityConnectionFile({ connectionFile: svcconfig, certDir, path: identity.path, user: identity.user, groups: identity.groups });
    }
  }

  const started = Date.now();
  const wait = setInterval(() => {
    if (fs.existsSync(svcconfig)) {
      clearInterval(wait);
      writeIdentities().then(
        () => {
          // Each controller acts as its own ServiceAccount with only its role; the root CA publisher
          // hands out the CA of the manager's connection file, the one the API server is served with.
          run('svc-controller-manager', [
            `--svcconfig=${identities.controllerManager.path}`,
            '--secure-port=0',
            '--use-service-account-credentials',
            ...nodeIpamArgs,
          ]);
          // The scheduler places pending pods on nodes (`npm run nodes -- --nodes=3` runs simulated ones).
          run('svc-scheduler', [`--svcconfig=${identities.scheduler.path}`, '--secure-port=0']);
          startNodeAgent();
          startServiceProxy();
          startClusterDns({
            run,
            writeIdentity: (identity) => require(distApiServer).writeIdentityConnectionFile({ connectionFile: svcconfig, certDir, ...identity }),
            root,
            adminConfig: svcconfig,
            apiServerArgs: extraArgs,
            address: Object.values(require('node:os').networkInterfaces())
              .flat()
              .find((a) => a && a.family === 'IPv4' && !a.internal)?.address,
          }).catch((error) => console.error(`the cluster DNS did not start: ${error.message}`));
          console.log(`Control plane running. Use it with:\n  export KUBECONFIG=${svcconfig}\n  kubectl get namespaces`);
        },
        (error) => {
          console.error(`could not write the components' connection files: ${error.message}`);
          stop(1);
        },
      );
    } else if (Date.now() - started > 60000) {
      clearInterval(wait);
      console.error('the API server did not write its client connection file within 60s');
      stop(1);
    }
  }, 100);
}

#!/usr/bin/env node
'use strict';
// `npm start`: the whole control plane on one machine, on the embedded store, with its state under
// ./.data (or $SVC_DATA). Runs the API server, waits until it is ready, then runs the controller
// manager and the scheduler against it. Extra arguments are passed to the API server.
// `npm start -- --store=etcd` (or SVC_STORE=etcd): a three-member etcd cluster on loopback (Debian's
// etcd-server, data under .data/etcd) and two API servers on it (store3), 127.0.0.1 and 127.0.0.2 on
// one port; the controller manager, the scheduler and the node agent name both and fail over.
// Secure by default: Node and RBAC authorization; the written connection file authenticates as an administrator (a client
// certificate in system:masters); the controller manager, the scheduler, the node agent and the service
// proxy each get a connection file of their own identity (system:kube-controller-manager,
// system:kube-scheduler, system:node:<host>, system:kube-proxy), bound to their roles;
// service account tokens are signed with a key generated on first start.
const { spawn } = require('node:child_process');
const { LocalNodes, takeNodesFlag } = require('./local-nodes');
const fs = require('node:fs');
const path = require('node:path');
const { nodeAgentDnsConfig, startClusterDns } = require('./cluster-dns');
const { ensureDefaultStorageClass, nodeAgentLocalPathArgs } = require('./default-storage-class');
const { ensureNodeBootstrap } = require('./node-bootstrap');
const { startMetricsServer } = require('./metrics-server');
const { startIngressController } = require('./ingress-controller');
const { ensureNetworkPolicyRole } = require('./network-policy-role');

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
// Nodes join as kubeadm's do (TLS bootstrap): with a bootstrap token written to this file, their client
// certificate requested, approved by the controller manager and renewed by the node itself. With
// SVC_NODE_BOOTSTRAP=off each node is given a certificate of the API server's client CA instead.
const nodeBootstrap = process.env.SVC_NODE_BOOTSTRAP === 'off' ? undefined : { config: path.join(root, 'bootstrap.svcconfig') };
// The API server goes last: the controller manager, the scheduler and the node agent stop first, so
// that they release their leases (a restart then leads at once instead of waiting for them to expire).
const children = { components: [], apiServer: [], etcd: [] };
let stopping = false;

function run(name, args, options = {}) {
  // The IPC channel is how a child knows the launcher is gone, even after a SIGKILL (bin/launch.js).
  const command = [process.execPath, path.join(__dirname, name + '.js'), ...args];
  // A node of its own network namespace: nsenter enters it and execs node, so the pid and the channel stay.
  if (options.netns) command.unshift('nsenter', `--net=${options.netns}`);
  const child = spawn(command[0], command.slice(1), { stdio: ['inherit', 'inherit', 'inherit', 'ipc'] });
  (name === 'svc-apiserver' ? children.apiServer : children.components).push(child);
  watchExit(name, child);
  return child;
}

function watchExit(name, child) {
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${name} exited (${signal || code}); stopping the control plane`);
      stop(code || 1);
    }
  });
}

// Beyond the components' own graceful shutdown (30 s for the controllers' in-flight work), so a loaded
// machine still sees them stop their work and release their leases before they are killed.
const COMPONENT_STOP_SECONDS = 40;
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
    for (const child of [...children.components, ...children.apiServer, ...children.etcd]) child.kill('SIGKILL');
    process.exit(code);
  }
  stopping = true;
  stopAll(children.components, COMPONENT_STOP_SECONDS)
    .then(cleanUpServiceProxy)
    .then(() => localNodes && localNodes.stop())
    .then(() => stopAll(children.apiServer, API_SERVER_STOP_SECONDS))
    .then(() => stopAll(children.etcd, COMPONENT_STOP_SECONDS))
    .then(() => process.exit(code));
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(0));
// npm (or a shell) that is itself killed does not pass the signal on: the launcher then finds itself
// handed to another parent, and stops as if told to.
const parentAtStart = process.ppid;
// Not a second signal: npm passes a SIGTERM on and then exits, and the stop already under way must
// not be cut short to a SIGKILL of everything.
setInterval(() => {
  if (process.ppid !== parentAtStart && !stopping) stop(0);
}, 500).unref();

// The nodes: a node agent per node, on a container runtime npm start manages (bin/local-nodes.js) unless
// $SVC_CONTAINER_RUNTIME_ENDPOINT names one; the controller manager gives each Node a pod CIDR.
const nodeIpamArgs = ['--allocate-node-cidrs', `--cluster-cidr=${process.env.SVC_CLUSTER_CIDR || '10.244.0.0/16'}`];
let localNodes;

// The service proxy routes ClusterIPs and NodePorts, one per node as kube-proxy runs: the first node's
// on the host, each further node's in that node's network namespace (its rules go with the namespace).
// As root only (it programs the kernel's nftables, or iptables without the nft command, which it gets
// with apt-get when missing). Each acts as system:kube-proxy (the system:node-proxier role) and answers
// NodePorts on its node's address on the node network (the node's InternalIP; without a node of its
// own, the host's first address, since nftables serves no NodePort on 127.0.0.1). The host's rules
// outlive a restart of the proxy alone, but not the control plane: stopping removes them (--cleanup).
// SVC_SERVICE_PROXY=off leaves the proxies out; SVC_SERVICE_PROXY=namespaced runs only the further
// nodes' (the host's nftables untouched, as when another cluster on this machine owns them).
const serviceProxyMode = process.env.SVC_SERVICE_PROXY || 'on';
if (!['on', 'off', 'namespaced'].includes(serviceProxyMode)) {
  console.error(`SVC_SERVICE_PROXY=${serviceProxyMode}: expected on, off or namespaced`);
  process.exit(2);
}
let serviceProxyStarted = false;
function cleanUpServiceProxy() {
  if (!serviceProxyStarted) return;
  require('node:child_process').spawnSync(process.execPath, [path.join(__dirname, 'svc-proxy.js'), '--cleanup'], { stdio: 'ignore', timeout: 30_000 });
}
let serviceProxyUsable;
/** Whether proxies can run here (root, nft or iptables, installed when missing); says why not, once. */
function serviceProxyCanRun() {
  if (serviceProxyUsable !== undefined) return serviceProxyUsable;
  serviceProxyUsable = false;
  if (serviceProxyMode === 'off') return false;
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    console.log('Not root: the service proxy (svc-proxy) does not start, so ClusterIPs and NodePorts do not route; run npm start as root.');
    return false;
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
    return false;
  }
  serviceProxyUsable = true;
  return true;
}
function serviceProxyArgs({ name, address, masterArgs = [] }) {
  return [
    `--svcconfig=${identities.proxy.path}`,
    ...masterArgs,
    `--hostname-override=${name}`,
    `--cluster-cidr=${process.env.SVC_CLUSTER_CIDR || '10.244.0.0/16'}`,
    '--healthz-bind-address=127.0.0.1:10256',
    '--metrics-bind-address=127.0.0.1:10249',
    ...(address ? [`--bind-address=${address}`] : []),
  ];
}
function startServiceProxy(masterArgs = []) {
  if (serviceProxyMode !== 'on' || !serviceProxyCanRun()) return;
  // The node's own address when npm start runs the node (its InternalIP on the node bridge), else the host's first.
  const address =
    localNodes.hostAddress() ??
    Object.values(require('node:os').networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
  run('svc-proxy', serviceProxyArgs({ name: nodeName, address, masterArgs }));
  serviceProxyStarted = true;
  allowPolicyEnforcement();
}
/** A further node's proxy, in its network namespace: its health and metrics ports are that namespace's own. */
function startNodeServiceProxy({ name, address, netns }) {
  if (!serviceProxyCanRun()) return;
  run('svc-proxy', serviceProxyArgs({ name, address }), { netns });
  allowPolicyEnforcement();
}
// The proxies enforce NetworkPolicies too, for which they read policies, pods and namespaces (once for all).
let policyRoleRequested = false;
function allowPolicyEnforcement() {
  if (policyRoleRequested) return;
  policyRoleRequested = true;
  ensureNetworkPolicyRole(svcconfig).catch((error) => console.error(`NetworkPolicies will not be enforced: ${error.message}`));
}

// Audit and encryption at rest, on unless the arguments configure them. The policy follows the one
// Kubernetes' GCE clusters run: Secrets and ConfigMaps (and token requests and reviews) at Metadata
// only, since they hold credentials; health, events and lease renewals not at all; reads without
// their responses. The encryption key is made once and kept: Secrets written with it need it to read.
function securityDefaults(args, auditDir) {
  const crypto = require('node:crypto');
  const given = (flag) => args.some((a) => a === flag || a.startsWith(`${flag}=`));
  const defaults = [];
  if (!given('--audit-policy-file')) {
    const policy = path.join(root, 'audit-policy.yaml');
    if (!fs.existsSync(policy)) fs.writeFileSync(policy, DEFAULT_AUDIT_POLICY, { mode: 0o600 });
    defaults.push(`--audit-policy-file=${policy}`);
    if (!given('--audit-log-path') && !given('--audit-webhook-config-file')) {
      defaults.push(
        `--audit-log-path=${path.join(root, auditDir, 'audit.log')}`,
        '--audit-log-maxsize=100',
        '--audit-log-maxbackup=10',
        '--audit-log-compress',
      );
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
const storeArg = process.argv.slice(2).find((a) => a.startsWith('--store='));
const store = (storeArg ? storeArg.slice('--store='.length) : process.env.SVC_STORE) || 'embedded';
if (store !== 'embedded' && store !== 'etcd') {
  console.error(`--store=${store}: the store is "embedded" (the default) or "etcd" (three etcd members and two API servers)`);
  process.exit(2);
}

// The etcd members of `--store=etcd`: client and peer ports as etcd's own local cluster uses them.
const ETCD_BINARY = process.env.SVC_ETCD_BINARY || '/usr/bin/etcd';
const etcdMembers = [0, 1, 2].map((i) => ({
  name: `m${i}`,
  client: `http://127.0.0.1:${[2379, 22379, 32379][i]}`,
  peer: `http://127.0.0.1:${[2380, 22380, 32380][i]}`,
  dataDir: path.join(root, 'etcd', `m${i}`),
}));
/** The second API server: the same port on another loopback address, so the kubernetes Endpoints can list both. */
const SECOND_API_SERVER = '127.0.0.2';

function startEtcd() {
  if (!fs.existsSync(ETCD_BINARY)) {
    console.error(`--store=etcd needs etcd (${ETCD_BINARY} is missing). On Debian, as root: "apt-get install -y etcd-server", then npm start again.`);
    process.exit(1);
  }
  const cluster = etcdMembers.map((m) => `${m.name}=${m.peer}`).join(',');
  for (const m of etcdMembers) {
    // A member that has data rejoins its cluster; a fresh one bootstraps it.
    const state = fs.existsSync(m.dataDir) ? 'existing' : 'new';
    fs.mkdirSync(path.dirname(m.dataDir), { recursive: true, mode: 0o700 });
    const child = spawn(
      ETCD_BINARY,
      [
        `--name=${m.name}`,
        `--data-dir=${m.dataDir}`,
        `--listen-client-urls=${m.client}`,
        `--advertise-client-urls=${m.client}`,
        `--listen-peer-urls=${m.peer}`,
        `--initial-advertise-peer-urls=${m.peer}`,
        `--initial-cluster=${cluster}`,
        `--initial-cluster-state=${state}`,
        '--initial-cluster-token=svc-local',
        '--logger=zap',
        '--log-level=warn',
      ],
      // Its log (warnings and worse) goes to a file beside its data, not over the components' output.
      { stdio: ['ignore', 'ignore', fs.openSync(`${m.dataDir}.log`, 'a')] },
    );
    children.etcd.push(child);
    watchExit(`etcd ${m.name}`, child);
  }
  console.log(`etcd members on ${etcdMembers.map((m) => m.client).join(', ')} (data and logs in ${path.join(root, 'etcd')})`);
}

let extraArgs;
try {
  const taken = takeNodesFlag(process.argv.slice(2).filter((a) => !a.startsWith('--store=')));
  extraArgs = taken.rest;
  localNodes = new LocalNodes({
    root,
    nodeName,
    nodes: taken.nodes,
    caFile: path.join(root, 'node-agent', 'client-ca', 'client-ca.crt'),
    nodeAgentSvcconfig: identities.nodeAgent.path,
    adminSvcconfig: svcconfig,
    agentConfigLines: nodeAgentDnsConfig(extraArgs),
    agentArgs: nodeAgentLocalPathArgs(),
    bootstrapSvcconfig: nodeBootstrap && nodeBootstrap.config,
    startNodeServiceProxy,
    log: (line) => console.log(line),
  });
  localNodes.plan();
} catch (error) {
  console.error(error.message);
  process.exit(2);
}

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

// The front proxy's CA and client certificate (kubeadm's front-proxy-ca and front-proxy-client), unless
// the arguments configure the front proxy: the API server presents the certificate, with the caller in
// X-Remote-* headers, to the extension API servers it aggregates (the metrics server), which trust the
// CA as the extension-apiserver-authentication ConfigMap publishes it.
const frontProxyPki = {
  caDir: path.join(root, 'front-proxy-ca'),
  cert: path.join(certDir, 'front-proxy-client.crt'),
  key: path.join(certDir, 'front-proxy-client.key'),
};
async function ensureFrontProxyClientCertificate() {
  const { ensureClientCa, issueClientCertificate } = require(distApiServer);
  const ca = await ensureClientCa(frontProxyPki.caDir);
  const issued = await issueClientCertificate(ca, 'front-proxy-client');
  fs.writeFileSync(frontProxyPki.key, issued.keyPem, { mode: 0o600 });
  fs.writeFileSync(frontProxyPki.cert, issued.certPem, { mode: 0o644 });
  return ca.certFile;
}
function frontProxyDefaults(args, caFile) {
  const given = (flag) => args.some((a) => a === flag || a.startsWith(`${flag}=`));
  if (given('--requestheader-client-ca-file') || given('--proxy-client-cert-file')) return [];
  return [
    `--requestheader-client-ca-file=${caFile}`,
    '--requestheader-allowed-names=front-proxy-client',
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    `--proxy-client-cert-file=${frontProxyPki.cert}`,
    `--proxy-client-key-file=${frontProxyPki.key}`,
    // The host may not route cluster IPs (the service proxy can be off): endpoints are reached directly.
    ...(given('--enable-aggregator-routing') ? [] : ['--enable-aggregator-routing=true']),
  ];
}
let frontProxyCaFile;

ensureNodeAgentClientCertificate()
  .then(() => ensureFrontProxyClientCertificate())
  .then((caFile) => {
    frontProxyCaFile = caFile;
  })
  .then(
    () =>
      localNodes.apiServerAddressArgs().then(startControlPlane, (error) => {
        console.error(`could not set up the node network: ${error.message}`);
        process.exit(1);
      }),
    (error) => {
      console.error(`could not make the API server's client certificates (node agents, front proxy): ${error.message}`);
      process.exit(1);
    },
  );

function startControlPlane(addressArgs) {
  localNodes.startRuntime();
  const storeArgs =
    store === 'etcd'
      ? ['--storage-backend=store3', `--store-servers=${etcdMembers.map((m) => m.client).join(',')}`]
      : ['--storage-backend=embedded', `--data-dir=${path.join(root, 'store')}`];
  if (store === 'etcd') startEtcd();
  const apiServerArgs = (address, connectionFile, auditDir) => [
    ...address,
    `--secure-port=${port}`,
    ...storeArgs,
    `--cert-dir=${certDir}`,
    `--svcconfig-out=${connectionFile}`,
    '--nodeagent-preferred-address-types=InternalIP',
    '--authorization-mode=Node,RBAC',
    ...(nodeBootstrap ? ['--enable-bootstrap-token-auth'] : []),
    `--service-account-signing-key-file=${serviceAccountKey}`,
    `--service-account-key-file=${serviceAccountKey}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--nodeagent-client-certificate=${nodeAgentPki.cert}`,
    `--nodeagent-client-key=${nodeAgentPki.key}`,
    ...securityDefaults(extraArgs, auditDir),
    ...frontProxyDefaults(extraArgs, frontProxyCaFile),
    ...extraArgs,
  ];
  run('svc-apiserver', apiServerArgs(addressArgs, svcconfig, 'audit'));
  // The components name every API server and fail over between them.
  const firstAddress = addressArgs.find((a) => a.startsWith('--bind-address=')).slice('--bind-address='.length);
  const masterArgs = store === 'etcd' ? [`--master=https://${firstAddress}:${port},https://${SECOND_API_SERVER}:${port}`] : [];

  // Each component's identity, from the API server's own client CA.
  const { writeIdentityConnectionFile } = require(distApiServer);
  async function writeIdentities() {
    for (const identity of Object.values(identities)) {
      // A node that joins with a token makes its own.
      if (identity === identities.nodeAgent && nodeBootstrap) continue;
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
          // The second API server starts once the first has made the certificate authorities they share.
          if (store === 'etcd')
            run('svc-apiserver', apiServerArgs([`--bind-address=${SECOND_API_SERVER}`], path.join(root, 'apiserver-b.svcconfig'), 'audit-b'));
          run('svc-controller-manager', [
            `--svcconfig=${identities.controllerManager.path}`,
            ...masterArgs,
            '--secure-port=0',
            '--use-service-account-credentials',
            ...nodeIpamArgs,
            // The certificates of nodes (and of approved requests) come from the API server's client CA.
            `--cluster-signing-cert-file=${path.join(certDir, 'client-ca.crt')}`,
            `--cluster-signing-key-file=${path.join(certDir, 'client-ca.key')}`,
            // Kubernetes leaves these two off; kubeadm's clusters, like this one, turn them on.
            '--controllers=*,bootstrapsigner,tokencleaner',
          ]);
          // The scheduler places pending pods on nodes (`npm run nodes -- --nodes=3` runs simulated ones).
          run('svc-scheduler', [`--svcconfig=${identities.scheduler.path}`, ...masterArgs, '--secure-port=0']);
          // kubeadm's bootstrap bindings, cluster-info and a token (bin/node-bootstrap.js), before any node joins.
          const bootstrapped = nodeBootstrap
            ? ensureNodeBootstrap(svcconfig, { bootstrapConfigPath: nodeBootstrap.config }).catch((error) =>
                console.error(`could not set up the nodes' TLS bootstrap: ${error.message}`),
              )
            : Promise.resolve();
          bootstrapped
            .then(() => localNodes.startAgents(run, (identity) => writeIdentityConnectionFile({ connectionFile: svcconfig, certDir, ...identity })))
            .catch((error) => console.log(`The container runtime did not start, so pods will not run: ${error.message}`));
          startServiceProxy(masterArgs);
          // The node agents' local path provisioner serves it: claims of no class get it through DefaultStorageClass.
          ensureDefaultStorageClass(svcconfig).catch((error) => console.error(`could not create the default StorageClass: ${error.message}`));
          startClusterDns({
            run,
            writeIdentity: (identity) => writeIdentityConnectionFile({ connectionFile: svcconfig, certDir, ...identity }),
            root,
            adminConfig: svcconfig,
            apiServerArgs: extraArgs,
            componentArgs: masterArgs,
            // Pods reach the host on the node network's address; without a node of its own, the host's first.
            address:
              localNodes.hostAddress() ??
              Object.values(require('node:os').networkInterfaces())
                .flat()
                .find((a) => a && a.family === 'IPv4' && !a.internal)?.address,
          }).catch((error) => console.error(`the cluster DNS did not start: ${error.message}`));
          // The metrics API (kubectl top), served through the API server's aggregation as Kubernetes serves it.
          startMetricsServer({
            run,
            writeIdentity: (identity) => writeIdentityConnectionFile({ connectionFile: svcconfig, certDir, ...identity }),
            issueNodeAgentClientCertificate: async (user, groups) => {
              const { ensureClientCa, issueClientCertificate } = require(distApiServer);
              return issueClientCertificate(await ensureClientCa(nodeAgentPki.caDir), user, groups);
            },
            root,
            adminConfig: svcconfig,
            address: localNodes.hostAddress() ?? '127.0.0.1',
            componentArgs: masterArgs,
          }).catch((error) => console.error(`the metrics server did not start: ${error.message}`));
          // The ingress controller serves the default IngressClass svc; it proxies to pods on the node network.
          startIngressController({
            run,
            writeIdentity: (identity) => writeIdentityConnectionFile({ connectionFile: svcconfig, certDir, ...identity }),
            root,
            adminConfig: svcconfig,
            componentArgs: masterArgs,
            address: localNodes.hostAddress(),
          }).catch((error) => console.error(`the ingress controller did not start: ${error.message}`));
          const where = store === 'etcd' ? ` (store3 on etcd; API servers on ${firstAddress} and ${SECOND_API_SERVER}, port ${port})` : '';
          console.log(`Control plane running${where}. Use it with:\n  export KUBECONFIG=${svcconfig}\n  kubectl get namespaces`);
          // The console ships in the build (dist/console); the API server serves it.
          if (fs.existsSync(path.join(__dirname, '..', 'dist', 'console', 'index.html'))) {
            console.log(`Web console: https://127.0.0.1:${port}/console/ (sign in with a token: "kubectl create token <service account>", see the README)`);
          }
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

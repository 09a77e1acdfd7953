'use strict';
// The nodes `npm start` runs on this machine. Without $SVC_CONTAINER_RUNTIME_ENDPOINT it manages their
// runtime itself, as k3s does: Debian's containerd, runc and CNI plugins (installed with apt-get when
// missing and running as root), a containerd per node with its root, state, socket and configuration
// under .data, the pause, busybox and Node.js images made locally, every archive in .data/images
// imported, registries from .data/registries.yaml, and a node network: a bridge on the host whose
// address the API server binds and advertises (so pods reach it), and with --nodes=N further nodes, each
// in a network namespace of its own with its own containerd, pod CIDR and route. All of it stops with the
// control plane and leaves no mount, bridge, namespace or cgroup behind.
const fs = require('node:fs');
const path = require('node:path');

const dist = (lib) => path.join(__dirname, '..', 'dist', 'libs', lib, 'src', 'index.js');
const MAX_NODES = 20;
const ROUTE_SYNC_MS = 2_000;

/** Takes `--nodes=N` (or `--nodes N`) out of the launcher's arguments; the rest go to the API server. */
function takeNodesFlag(args) {
  const rest = [];
  let nodes = 1;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    let value;
    if (arg.startsWith('--nodes=')) value = arg.slice('--nodes='.length);
    else if (arg === '--nodes') value = args[++i];
    else {
      rest.push(arg);
      continue;
    }
    if (!/^[0-9]+$/.test(value ?? '') || Number(value) < 1 || Number(value) > MAX_NODES) {
      throw new Error(`--nodes: ${JSON.stringify(value ?? '')} is not a number of nodes from 1 to ${MAX_NODES}`);
    }
    nodes = Number(value);
  }
  return { nodes, rest };
}

function agentConfig({ dir, address, caFile, cgroupRoot, extraLines = [] }) {
  return [
    'apiVersion: nodeagent.config.svc.io/v1beta1',
    'kind: NodeAgentConfiguration',
    `address: ${address}`,
    `healthzBindAddress: ${address}`,
    // Only client certificates of the node agent client CA (the API server's) and tokens the API
    // server vouches for (TokenReview) get in, for what the API server allows (SubjectAccessReview).
    `authentication: { anonymous: { enabled: false }, webhook: { enabled: true }, x509: { clientCAFile: ${JSON.stringify(caFile)} } }`,
    'authorization: { mode: Webhook }',
    `staticPodPath: ${JSON.stringify(path.join(dir, 'manifests'))}`,
    ...(cgroupRoot ? [`cgroupRoot: ${JSON.stringify(cgroupRoot)}`] : []),
    ...extraLines,
    '',
  ].join('\n');
}

class LocalNodes {
  /**
   * @param {object} options
   * @param {string} options.root the state directory (.data)
   * @param {string} options.nodeName the first node's name (the machine's)
   * @param {number} options.nodes how many nodes
   * @param {string} options.caFile the node agent client CA the agents trust
   * @param {string[]} [options.agentConfigLines] further lines of each agent's configuration (the cluster DNS)
   * @param {string[]} [options.agentArgs] further flags of each agent (the local path provisioner off)
   * @param {(node: { name: string, address: string, netns: string }) => void} [options.startNodeServiceProxy]
   *   starts a further node's service proxy in its network namespace
   * @param {(line: string) => void} options.log
   */
  constructor(options) {
    this.options = options;
    this.prefix = process.env.SVC_NETWORK_PREFIX || 'svc';
    this.nodeCidr = process.env.SVC_NODE_CIDR || '10.243.0.0/24';
    this.mode = 'none';
    this.started = [];
    this.stopped = false;
  }

  /** Decides what runs the pods, before the API server starts: throws when the request cannot be met. */
  plan() {
    const { nodes, log } = this.options;
    this.endpoint = process.env.SVC_CONTAINER_RUNTIME_ENDPOINT;
    if (this.endpoint) {
      if (nodes > 1) throw new Error('--nodes needs the container runtime npm start manages: unset SVC_CONTAINER_RUNTIME_ENDPOINT');
      this.mode = 'external';
      return;
    }
    this.cri = require(dist('cri'));
    const problem = this.cri.prepareMachineRuntime(log);
    if (problem) {
      log(`No container runtime: ${problem}. Pods will not run (or set SVC_CONTAINER_RUNTIME_ENDPOINT).`);
      return;
    }
    this.mode = 'managed';
  }

  /** The node network and the API server's address on it: the arguments that bind and advertise it. */
  async apiServerAddressArgs() {
    if (this.mode !== 'managed') return ['--bind-address=127.0.0.1'];
    this.network = await this.cri.createNodeNetwork({ prefix: this.prefix, cidr: this.nodeCidr });
    const address = this.network.hostAddress;
    return [`--bind-address=${address}`, `--advertise-address=${address}`];
  }

  /** The first node's address on the node network (its InternalIP), once made; undefined without a node of its own. */
  hostAddress() {
    return this.network ? this.network.hostAddress : undefined;
  }

  /** Starts the first node's containerd, the images and the mirror, while the API server starts. */
  startRuntime() {
    if (this.mode !== 'managed') return;
    this.runtime = this.cri.startMachineRuntime({
      dataDir: this.options.root,
      bridge: `${this.prefix}cni0`,
      mirrorAddress: this.network.hostAddress,
      log: this.options.log,
    });
    // Failures are reported when the agents wait for it.
    this.runtime.catch(() => undefined);
  }

  /**
   * Starts a node agent per node once the API server is ready.
   * @param {(name: string, args: string[], options?: { netns?: string }) => void} run spawns a process
   * @param {(identity: { path: string, user: string, groups: string[] }) => Promise<void>} writeIdentity
   */
  async startAgents(run, writeIdentity) {
    const { root, nodeName } = this.options;
    if (this.mode === 'none') return;
    if (this.mode === 'external') {
      const socket = this.endpoint.replace(/^unix:\/\//, '');
      if (!fs.existsSync(socket)) {
        this.options.log(`No container runtime at ${this.endpoint}: pods will not run.`);
        return;
      }
      this.startAgent(run, { name: nodeName, dir: path.join(root, 'node-agent'), endpoint: this.endpoint, address: '127.0.0.1' });
      return;
    }
    const runtime = await this.runtime;
    if (this.stopped) return;
    this.startAgent(run, {
      name: nodeName,
      dir: path.join(root, 'node-agent'),
      endpoint: runtime.containerd.endpoint,
      address: this.network.hostAddress,
      cgroupRoot: `/${this.prefix}/${nodeName}`,
    });
    this.namespaced = [];
    for (let n = 2; n <= this.options.nodes && !this.stopped; n++) {
      const name = `${nodeName}-${n}`;
      const dir = path.join(root, 'nodes', name);
      const node = await this.network.addNode(n);
      const containerd = await runtime.startNodeContainerd({ dir: path.join(dir, 'containerd'), netns: node.netns, bridge: `${this.prefix}cni0` });
      this.namespaced.push({ name, node, containerd });
      const identity = { path: path.join(dir, 'node-agent.svcconfig'), user: `system:node:${name}`, groups: ['system:nodes'] };
      await writeIdentity(identity);
      this.startAgent(run, {
        name,
        dir: path.join(dir, 'node-agent'),
        endpoint: containerd.endpoint,
        address: node.address,
        cgroupRoot: `/${this.prefix}/${name}`,
        svcconfig: identity.path,
        netns: node.netnsPath,
      });
      if (this.options.startNodeServiceProxy) this.options.startNodeServiceProxy({ name, address: node.address, netns: node.netnsPath });
    }
    if (this.namespaced.length > 0) this.syncRoutes();
  }

  startAgent(run, { name, dir, endpoint, address, cgroupRoot, svcconfig, netns }) {
    fs.mkdirSync(dir, { recursive: true });
    const config = path.join(dir, 'config.yaml');
    fs.writeFileSync(config, agentConfig({ dir, address, caFile: this.options.caFile, cgroupRoot, extraLines: this.options.agentConfigLines }));
    run(
      'svc-node-agent',
      [
        `--config=${config}`,
        `--svcconfig=${svcconfig || this.options.nodeAgentSvcconfig}`,
        `--hostname-override=${name}`,
        `--container-runtime-endpoint=${endpoint}`,
        `--root-dir=${path.join(dir, 'root')}`,
        `--cert-dir=${path.join(dir, 'pki')}`,
        `--node-ip=${address}`,
        ...(this.options.agentArgs ?? []),
      ],
      { netns },
    );
  }

  /** Routes each further node's pod CIDR (from node IPAM) to that node's address, as flannel's host-gw does. */
  syncRoutes() {
    const { loadClientConfig, Client, BUILTIN_RESOURCES } = require(dist('client'));
    const addresses = new Map(this.namespaced.map(({ name, node }) => [name, node.address]));
    let client;
    const sync = async () => {
      client ??= new Client(await loadClientConfig({ svcconfig: this.options.adminSvcconfig, discover: false }));
      const { items } = await client.resource(BUILTIN_RESOURCES.nodes).list();
      const routes = items
        .filter((n) => addresses.has(n.metadata.name) && n.spec && n.spec.podCIDR)
        .map((n) => ({ podCIDR: n.spec.podCIDR, address: addresses.get(n.metadata.name) }));
      await this.network.routePodCidrs(routes);
    };
    const tick = () => {
      if (this.stopped) return;
      sync()
        .catch((error) => this.options.log(`routing pod CIDRs: ${error.message}`))
        .finally(() => {
          if (!this.stopped) this.routeTimer = setTimeout(tick, ROUTE_SYNC_MS);
        });
    };
    tick();
  }

  /** After the node agents stopped: every runtime (sandboxes removed), the network, the nodes' cgroups. */
  async stop() {
    this.stopped = true;
    clearTimeout(this.routeTimer);
    if (this.mode !== 'managed') return;
    const runtime = await (this.runtime || Promise.resolve()).catch(() => undefined);
    await Promise.all((this.namespaced || []).map(({ containerd }) => containerd.stop().catch(() => undefined)));
    if (runtime) await runtime.stop().catch((error) => this.options.log(`stopping the container runtime: ${error.message}`));
    if (this.network) await this.network.close().catch(() => undefined);
    await this.cri.removeCgroupTree(`/${this.prefix}`).catch(() => undefined);
  }
}

module.exports = { LocalNodes, takeNodesFlag };

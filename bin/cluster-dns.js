'use strict';
// The cluster DNS of `npm start`: svc-dns serving port 53 on the node's address, reached by pods through
// the kube-dns Service in kube-system (a Service without a selector, at the tenth address of the
// service range as kubeadm places it, with an EndpointSlice of our own pointing at the process). The
// node agents get that address as clusterDNS. svc-dns acts as the ServiceAccount kube-system/kube-dns,
// which the bootstrap policy binds to system:kube-dns. SVC_CLUSTER_DNS=off leaves it out.
const path = require('node:path');

const CLUSTER_DOMAIN = 'cluster.local';
const DEFAULT_SERVICE_RANGE = '10.0.0.0/24';
const IDENTITY = { user: 'system:serviceaccount:kube-system:kube-dns', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'] };

/** The kube-dns Service's address: the tenth of the (first) service range given to the API server. */
function clusterDnsAddress(apiServerArgs) {
  const given = apiServerArgs.find((a) => a.startsWith('--service-cluster-ip-range='));
  const cidr = (given ? given.split('=')[1] : DEFAULT_SERVICE_RANGE).split(',')[0];
  const ipaddr = require('ipaddr.js');
  const [network] = ipaddr.parseCIDR(cidr);
  const bytes = network.toByteArray();
  bytes[bytes.length - 1] += 10;
  return ipaddr.fromByteArray(bytes).toString();
}

function enabled() {
  return process.env.SVC_CLUSTER_DNS !== 'off';
}

/** Lines of a NodeAgentConfiguration that point pods at the cluster DNS. */
function nodeAgentDnsConfig(apiServerArgs) {
  return enabled() ? [`clusterDomain: ${CLUSTER_DOMAIN}`, `clusterDNS: [${clusterDnsAddress(apiServerArgs)}]`] : [];
}

/** Writes the kube-dns Service and its EndpointSlice (server-side apply: a restart moves the endpoint). */
async function publishKubeDns(adminConfig, apiServerArgs, address) {
  const { Client, loadClientConfig } = require(path.join(__dirname, '..', 'dist', 'libs', 'client', 'src', 'index.js'));
  const client = new Client(await loadClientConfig({ svcconfig: adminConfig }));
  const params = { namespace: 'kube-system', fieldManager: 'svc-control-plane', force: true };
  const labels = { 'k8s-app': 'kube-dns', 'kubernetes.io/name': 'CoreDNS', 'kubernetes.io/cluster-service': 'true' };
  try {
    await client.services.apply(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'kube-dns', namespace: 'kube-system', labels },
        spec: {
          clusterIP: clusterDnsAddress(apiServerArgs),
          ports: [
            { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
            { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
          ],
        },
      },
      params,
    );
    await client.endpointSlices.apply(
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: 'kube-dns-svc-dns',
          namespace: 'kube-system',
          // Another manager's label keeps the EndpointSlice controller off a slice it did not make.
          labels: { 'kubernetes.io/service-name': 'kube-dns', 'endpointslice.kubernetes.io/managed-by': 'svc-control-plane' },
        },
        addressType: 'IPv4',
        endpoints: [{ addresses: [address], conditions: { ready: true } }],
        ports: [
          { name: 'dns', port: 53, protocol: 'UDP' },
          { name: 'dns-tcp', port: 53, protocol: 'TCP' },
        ],
      },
      params,
    );
  } finally {
    client.close();
  }
}

/**
 * Starts svc-dns on `address`:53 (root only: port 53 is privileged) once its identity file is written,
 * and publishes it as kube-dns. `run(name, args)` starts a component as the launcher does; `componentArgs`
 * (such as the other components' --master) are passed on.
 */
async function startClusterDns({ run, writeIdentity, root, adminConfig, apiServerArgs, address, componentArgs = [] }) {
  if (!enabled()) return;
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    console.log('Not root: the cluster DNS (svc-dns) does not start, since it serves port 53; pods resolve through the host; run npm start as root.');
    return;
  }
  if (!address) {
    console.log('No IPv4 address on this host for pods to reach: the cluster DNS (svc-dns) does not start.');
    return;
  }
  const identityPath = path.join(root, 'dns.svcconfig');
  await writeIdentity({ path: identityPath, ...IDENTITY });
  run('svc-dns', [`--svcconfig=${identityPath}`, ...componentArgs, `--bind-address=${address}`, '--port=53', `--cluster-domain=${CLUSTER_DOMAIN}`]);
  await publishKubeDns(adminConfig, apiServerArgs, address).catch((error) => console.error(`could not publish the kube-dns Service: ${error.message}`));
}

module.exports = { clusterDnsAddress, nodeAgentDnsConfig, publishKubeDns, startClusterDns };

// Pods resolving names through the cluster DNS, in real containers: containerd, an API server, a node
// agent whose clusterDNS is the kube-dns Service's ClusterIP, the controller manager writing
// EndpointSlices (with each pod's hostname when its subdomain names a headless Service), the scheduler, and svc-proxy
// routing ClusterIPs. As a further node of `npm start` runs: the node's containerd, pod bridge and
// proxy live in a network namespace of this file's own, on a node network (a bridge on the host);
// svc-dns serves port 53 on the host's address there, and the kube-dns Service (published as npm start
// publishes it) points at it, so every lookup of a pod goes pod -> ClusterIP -> the proxy's DNAT -> the
// host. The pods' resolver is the C library's of Debian's busybox-static, reading the resolv.conf the
// runtime wrote from the DNSConfig the agent gave; their /etc/hosts is the agent's.
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createNodeNetwork, ensureDebianPackages, nodeBaseImageArchive, nodeBaseImageName, type NamespacedNode, type NodeNetwork } from '@svc/cri';
import { localRuntimeUnavailable } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { ROOT } from './support/apiserver-process';
import { startControllerManagerProcess, type ControllerManagerProcess } from './support/controller-manager-process';
import { startDnsProcess, type DnsProcess } from './support/dns-process';
import { startSchedulerProcess, type SchedulerProcess } from './support/scheduler-process';
import { kubectl } from './support/kubectl-run';
import { startNodeCluster, type NodeCluster } from './support/node-cluster';
import { startProxyProcess, type ProxyProcess } from './support/proxy-process';

const unavailable =
  localRuntimeUnavailable() ??
  ensureDebianPackages([
    { name: 'nftables', provides: '/usr/sbin/nft' },
    { name: 'conntrack', provides: '/usr/sbin/conntrack' },
  ]);
if (unavailable) console.warn(`Cluster DNS tests with pods in containers are skipped: ${unavailable}`);
const describeWithRuntime = unavailable ? describe.skip : describe;

/** What npm start runs to publish the kube-dns Service and its EndpointSlice. */
const clusterDnsLauncher = createRequire(__filename)(join(ROOT, 'bin', 'cluster-dns.js')) as {
  clusterDnsAddress(apiServerArgs: string[]): string;
  publishKubeDns(adminConfig: string, apiServerArgs: string[], address: string): Promise<void>;
};

const ZONE = 'cluster.local';
/** The node network (bridge, veth, namespace) and the node's pods: names and ranges of this file's own. */
const PREFIX = `cdp${randomInt(10, 99)}`;
const NODE_NETWORK = `10.251.${randomInt(0, 250)}.${8 * randomInt(0, 31)}/29`;
const POD_CIDR = `10.${200 + randomInt(0, 50)}.${randomInt(0, 250)}.0/24`;
/** The kube-dns Service's address: the tenth of the API server's default service range, as npm start places it. */
const KUBE_DNS = clusterDnsLauncher.clusterDnsAddress([]);

function httpGet(host: string, port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.end();
  });
}

/** A shell line printing `<name> <the address the pod's resolver gives>` (empty when it gives none). */
const resolves = (name: string) => `echo "${name} $(ping -c1 -W1 ${name} 2>/dev/null | sed -n '1s/^PING [^(]*(\\([^)]*\\)).*/\\1/p')"`;

describeWithRuntime('the cluster DNS as pods in containers use it', () => {
  let network: NodeNetwork;
  let node: NamespacedNode;
  let cluster: NodeCluster;
  let controllers: ControllerManagerProcess;
  let dns: DnsProcess;
  let proxy: ProxyProcess;
  let scheduler: SchedulerProcess;
  let resolver: Resolver;
  const env = () => cluster.env();
  const pod = async (name: string) => JSON.parse((await kubectl(['get', 'pod', name, '-o', 'json'], env())).stdout);

  /** Runs pods to completion (restartPolicy Never) and gives each one's log. */
  async function runToCompletion(...pods: Array<{ name: string; script: string; spec?: Record<string, unknown> }>): Promise<string[]> {
    await cluster.apply(
      ...pods.map(({ name, script, spec }) => ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name },
        spec: {
          restartPolicy: 'Never',
          terminationGracePeriodSeconds: 1,
          containers: [{ name: 'main', image: 'busybox:1.36', command: ['sh', '-c', script] }],
          ...spec,
        },
      })),
    );
    for (const { name } of pods) {
      await eventually(async () => expect((await pod(name)).status?.phase).toMatch(/^(Succeeded|Failed)$/), 60_000, 250);
    }
    return Promise.all(pods.map(async ({ name }) => (await kubectl(['logs', name], env())).stdout));
  }

  beforeAll(async () => {
    network = await createNodeNetwork({ prefix: PREFIX, cidr: NODE_NETWORK });
    node = await network.addNode(2);
    cluster = await startNodeCluster({
      containerd: { netns: node.netns },
      // The proxy in the node's namespace reaches the API server at the host's address on the node network.
      apiserverBindAddress: network.hostAddress,
      serviceAccountTokens: true,
      agent: { config: { podCIDR: POD_CIDR, clusterDNS: [KUBE_DNS], clusterDomain: ZONE } },
    });
    // The host (the agent's probes, this test) reaches the node's pods through the node, as flannel's host-gw routes.
    await network.routePodCidrs([{ podCIDR: POD_CIDR, address: node.address }]);
    [controllers, dns, proxy, scheduler] = await Promise.all([
      startControllerManagerProcess(cluster.apiserver),
      startDnsProcess({ svcconfig: cluster.apiserver.kubeconfig, bindAddress: network.hostAddress, port: 53, resolvConf: '' }),
      startProxyProcess({ netns: node.netns, name: cluster.agent.nodeName, nodeIp: node.address, podCidr: POD_CIDR }, cluster.apiserver.kubeconfig),
      startSchedulerProcess(cluster.apiserver),
      clusterDnsLauncher.publishKubeDns(cluster.apiserver.kubeconfig, [], network.hostAddress),
    ]);
    resolver = new Resolver({ timeout: 2000, tries: 1 });
    resolver.setServers([network.hostAddress]);
  }, 120_000);

  afterAll(async () => {
    await scheduler?.stop();
    await proxy?.stop();
    await dns?.stop();
    await controllers?.stop();
    await cluster?.stop();
    await network?.close();
  }, 60_000);

  it("lets a ClusterFirst pod resolve Services by short and full names (the cluster's search list and ndots:5), an ExternalName by its CNAME, and a dnsPolicy None pod by its own dnsConfig", async () => {
    await cluster.apply(
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ name: 'http', port: 80 }] } },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'alias' }, spec: { type: 'ExternalName', externalName: `web.default.svc.${ZONE}` } },
    );
    const web = (await kubectl(['get', 'service', 'web', '-o', 'jsonpath={.spec.clusterIP}'], env())).stdout;
    const kubernetes = (await kubectl(['get', 'service', 'kubernetes', '-o', 'jsonpath={.spec.clusterIP}'], env())).stdout;
    await eventually(async () => expect(await resolver.resolve4(`web.default.svc.${ZONE}`)).toEqual([web]), 10_000, 100);

    const [clusterFirst, none] = await runToCompletion(
      {
        name: 'client',
        // The lookups at once: each ping waits its second for an answer no ClusterIP gives without a service proxy.
        script: [
          'cat /etc/resolv.conf',
          ...['web', 'web.default', `web.default.svc.${ZONE}`, 'kubernetes.default', 'alias', 'nope'].map((n) => `(${resolves(n)}) &`),
          'wait',
        ].join('\n'),
      },
      {
        name: 'custom',
        script: ['cat /etc/resolv.conf', resolves('web.default')].join('; '),
        spec: {
          dnsPolicy: 'None',
          dnsConfig: { nameservers: [network.hostAddress], searches: [`svc.${ZONE}`], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] },
        },
      },
    );
    const lines = clusterFirst.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        `search default.svc.${ZONE} svc.${ZONE} ${ZONE}`,
        `nameserver ${KUBE_DNS}`,
        'options ndots:5',
        `web ${web}`,
        `web.default ${web}`,
        `web.default.svc.${ZONE} ${web}`,
        `kubernetes.default ${kubernetes}`,
        // An ExternalName Service's CNAME, followed to the Service it names.
        `alias ${web}`,
        'nope ',
      ]),
    );
    expect(lines.filter((l) => l.startsWith('nameserver'))).toEqual([`nameserver ${KUBE_DNS}`]);
    expect(none.trimEnd().split('\n')).toEqual(
      expect.arrayContaining([`search svc.${ZONE}`, `nameserver ${network.hostAddress}`, 'options ndots:2 edns0', `web.default ${web}`]),
    );
  }, 120_000);

  it("resolves through the kube-dns Service's ClusterIP over UDP and TCP (the proxy's DNAT to svc-dns on the host) and reaches a Service by name", async () => {
    await cluster.apply(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'site' },
        spec: { selector: { app: 'site' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
      },
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'site', labels: { app: 'site' } },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: 'httpd',
              image: 'busybox:1.36',
              command: ['sh', '-c', 'mkdir -p /www && echo served-by-site > /www/index.html && exec httpd -f -p 8080 -h /www'],
              ports: [{ name: 'http', containerPort: 8080 }],
              readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 },
            },
          ],
        },
      },
    );
    await kubectl(['wait', '--for=condition=Ready', 'pod/site', '--timeout=60s'], env(), 65_000);
    const site = (await kubectl(['get', 'service', 'site', '-o', 'jsonpath={.spec.clusterIP}'], env())).stdout;
    // Without -T: Debian's busybox 1.35 wget crashes (SIGSEGV) when given a timeout.
    const fetchSite = 'wget -qO- http://site/index.html';
    const [udp, tcp] = await runToCompletion(
      // busybox's nslookup asks the resolv.conf nameserver itself, over UDP; wget asks the C library's resolver.
      { name: 'over-udp', script: [`nslookup site.default.svc.${ZONE} | sed -n 's/^Address: \\([0-9.]*\\)$/site \\1/p'`, fetchSite].join('; ') },
      // use-vc: the C library's resolver asks over TCP alone.
      { name: 'over-tcp', script: ['grep ^options /etc/resolv.conf', fetchSite].join('; '), spec: { dnsConfig: { options: [{ name: 'use-vc' }] } } },
    );
    expect(udp).toBe(`site ${site}\nserved-by-site\n`);
    expect(tcp).toBe('options ndots:5 use-vc\nserved-by-site\n');
    // The node's connection tracking saw pods' DNS over both protocols to the ClusterIP, translated to svc-dns on the host.
    const flows = (protocol: string) =>
      spawnSync('ip', ['netns', 'exec', node.netns, 'conntrack', '-L', '-p', protocol, '--orig-dst', KUBE_DNS, '--reply-src', network.hostAddress], {
        encoding: 'utf8',
      }).stdout;
    expect(flows('udp')).toContain('dport=53');
    expect(flows('tcp')).toContain('dport=53');
  }, 120_000);

  it("reaches the API server at KUBERNETES_SERVICE_HOST:PORT (the kubernetes Service's ClusterIP, through the proxy) with the pod's ServiceAccount token, verifying ca.crt from Node", async () => {
    await cluster.containerd.importImage(await nodeBaseImageArchive());
    const review = 'apis/authentication.k8s.io/v1/selfsubjectreviews';
    const body = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    // In-cluster configuration as client libraries read it: the Service's variables, the token, ca.crt.
    const inCluster = [
      "const fs = require('fs'); const dir = '/var/run/secrets/kubernetes.io/serviceaccount/';",
      'const { KUBERNETES_SERVICE_HOST: host, KUBERNETES_SERVICE_PORT: port } = process.env;',
      `const req = require('https').request({ host, port, method: 'POST', path: '/${review}', ca: fs.readFileSync(dir + 'ca.crt'),`,
      "  headers: { authorization: 'Bearer ' + fs.readFileSync(dir + 'token', 'utf8'), 'content-type': 'application/json' } },",
      "  (res) => { let t = ''; res.on('data', (c) => (t += c)); res.on('end', () => console.log(host, res.statusCode, JSON.parse(t).status.userInfo.username)); });",
      "req.on('error', (e) => console.log('error', e.message)); req.end(process.argv[1]);",
    ].join('\n');
    // Not busybox's wget: Debian's runs `openssl s_client` for https, which a busybox image does not have.
    const [node] = await runToCompletion({
      name: 'in-cluster',
      script: '',
      spec: { containers: [{ name: 'main', image: nodeBaseImageName(), command: ['node', '-e', inCluster, body] }] },
    });
    const kubernetes = (await kubectl(['get', 'service', 'kubernetes', '-o', 'jsonpath={.spec.clusterIP}'], env())).stdout;
    expect(node).toBe(`${kubernetes} 201 system:serviceaccount:default:default\n`);
  }, 120_000);

  it("finds a headless Service's pods by name: the EndpointSlice names each by its hostname, the Service name gives every ready pod", async () => {
    const serving = 'mkdir -p /www && hostname > /www/index.html && cp /etc/hosts /www/hosts && exec httpd -f -p 8080 -h /www';
    const dbPod = (name: string, spec: Record<string, unknown>) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels: { app: 'db' } },
      spec: {
        hostname: name,
        subdomain: 'db',
        terminationGracePeriodSeconds: 1,
        containers: [
          {
            name: 'httpd',
            image: 'busybox:1.36',
            command: ['sh', '-c', serving],
            ports: [{ name: 'http', containerPort: 8080 }],
            readinessProbe: { httpGet: { path: '/index.html', port: 'http' }, periodSeconds: 1 },
          },
        ],
        ...spec,
      },
    });
    await cluster.apply(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'db' },
        spec: { clusterIP: 'None', selector: { app: 'db' }, ports: [{ name: 'http', port: 8080 }] },
      },
      dbPod('db-0', { hostAliases: [{ ip: '10.9.9.9', hostnames: ['alias.example', 'alias'] }] }),
      dbPod('db-1', { setHostnameAsFQDN: true }),
    );
    await kubectl(['wait', '--for=condition=Ready', 'pod/db-0', 'pod/db-1', '--timeout=60s'], env(), 65_000);
    const ip0: string = (await pod('db-0')).status.podIP;
    const ip1: string = (await pod('db-1')).status.podIP;
    const name = `db.default.svc.${ZONE}`;

    // The EndpointSlice controller names each endpoint by its pod's hostname, the subdomain being the Service.
    await eventually(
      async () => {
        const slices = JSON.parse((await kubectl(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=db', '-o', 'json'], env())).stdout);
        const endpoints = slices.items.flatMap((s: { endpoints?: unknown[] }) => s.endpoints ?? []);
        expect(endpoints.map((e: any) => [e.hostname, e.addresses[0], e.conditions.ready]).sort()).toEqual([
          ['db-0', ip0, true],
          ['db-1', ip1, true],
        ]);
      },
      20_000,
      250,
    );
    await eventually(async () => expect((await resolver.resolve4(name)).sort()).toEqual([ip0, ip1].sort()), 10_000, 100);
    expect((await resolver.resolveSrv(`_http._tcp.${name}`)).map((s) => `${s.name}:${s.port}`).sort()).toEqual([`db-0.${name}:8080`, `db-1.${name}:8080`]);
    expect(await resolver.reverse(ip0)).toEqual([`db-0.${name}`]);

    // The agent's /etc/hosts: the pod's FQDN first, then its hostAliases; setHostnameAsFQDN makes the FQDN the kernel's hostname.
    const hosts = await httpGet(ip0, 8080, '/hosts');
    expect(hosts).toMatch(/^# Kubernetes-managed hosts file\.\n127\.0\.0\.1\tlocalhost\n/);
    expect(hosts).toContain(`${ip0}\tdb-0.${name}\tdb-0\n\n# Entries added by HostAliases.\n10.9.9.9\talias.example\talias\n`);
    expect(await httpGet(ip1, 8080, '/index.html')).toBe(`db-1.${name}\n`);

    const [log] = await runToCompletion({
      name: 'reader',
      script: [
        'wget -qO- http://db-0.db:8080/index.html',
        `wget -qO- http://db-1.db.default.svc.${ZONE}:8080/index.html`,
        `nslookup -type=a ${name} | sed -n 's/^Address: \\([0-9.]*\\)$/headless \\1/p' | sort`,
      ].join('; '),
    });
    expect(log.trimEnd().split('\n')).toEqual(['db-0', `db-1.${name}`, ...[ip0, ip1].sort().map((ip) => `headless ${ip}`)]);
  }, 120_000);

  it("gives each pod of a StatefulSet its stable name under the set's governing Service (`web-0.web`), as the controller sets hostname and subdomain", async () => {
    await cluster.apply(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'webs' },
        spec: { clusterIP: 'None', selector: { app: 'webs' }, ports: [{ name: 'http', port: 8080 }] },
      },
      {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'webs' },
        spec: {
          serviceName: 'webs',
          replicas: 2,
          podManagementPolicy: 'Parallel',
          selector: { matchLabels: { app: 'webs' } },
          template: {
            metadata: { labels: { app: 'webs' } },
            spec: {
              terminationGracePeriodSeconds: 1,
              containers: [
                {
                  name: 'httpd',
                  image: 'busybox:1.36',
                  command: ['sh', '-c', 'mkdir -p /www && hostname > /www/index.html && exec httpd -f -p 8080 -h /www'],
                  ports: [{ name: 'http', containerPort: 8080 }],
                  readinessProbe: { httpGet: { path: '/index.html', port: 'http' }, periodSeconds: 1 },
                },
              ],
            },
          },
        },
      },
    );
    await eventually(
      async () => expect((await kubectl(['get', 'statefulset', 'webs', '-o', 'jsonpath={.status.readyReplicas}'], env())).stdout).toBe('2'),
      60_000,
      250,
    );
    const ip0: string = (await pod('webs-0')).status.podIP;
    const ip1: string = (await pod('webs-1')).status.podIP;
    await eventually(async () => expect(await resolver.resolve4(`webs-1.webs.default.svc.${ZONE}`)).toEqual([ip1]), 20_000, 100);

    const [log] = await runToCompletion({
      name: 'set-reader',
      script: [
        'wget -qO- http://webs-0.webs:8080/index.html',
        `wget -qO- http://webs-1.webs.default.svc.${ZONE}:8080/index.html`,
        resolves('webs-0.webs'),
      ].join('; '),
    });
    expect(log.trimEnd().split('\n')).toEqual(['webs-0', 'webs-1', `webs-0.webs ${ip0}`]);
  }, 120_000);

  it("gives a host-network pod the node's resolver (here none: the node's loopback) and the node's hosts file with its hostAliases", async () => {
    const [log] = await runToCompletion({
      name: 'on-host',
      script: 'cat /etc/resolv.conf; head -1 /etc/hosts; tail -2 /etc/hosts',
      spec: { hostNetwork: true, hostAliases: [{ ip: '10.9.9.8', hostnames: ['from-alias'] }] },
    });
    expect(log.trimEnd().split('\n')).toEqual(
      expect.arrayContaining([
        'search .',
        'nameserver 127.0.0.1',
        '# Kubernetes-managed hosts file (host network).',
        '# Entries added by HostAliases.',
        '10.9.9.8\tfrom-alias',
      ]),
    );
  }, 90_000);
});

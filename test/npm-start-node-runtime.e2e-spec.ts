// `npm start` with nothing given: it runs its own containerd under its state directory, and the
// examples of the docs run with no other step (a Deployment of busybox serving HTTP, a pod on a second
// node, `--nodes=2`, reaching it, by its ClusterIP and the second node's NodePort through that node's own service
// proxy, the API server's address and KUBERNETES_SERVICE_* in every pod, an image archive dropped into
// .data/images used at once); stopping leaves no mount, bridge or cgroup behind. Without containerd
// (hidden by a narrowed PATH) it says in one line what to install.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { busyboxImageArchive } from '@svc/cri/testing';
import { cgroupMountPoints, nodeBaseImageName, runtimeHostProblem } from '@svc/cri';
import { eventually } from '@svc/runtime/testing';
import { freeLoopbackPort, ROOT } from './support/apiserver-process';
import { kubectl } from './support/kubectl-run';

const hostProblem = runtimeHostProblem();
if (hostProblem) console.warn(`npm start with its own container runtime is skipped: ${hostProblem}`);
const describeAsRoot = hostProblem ? describe.skip : describe;

// Names of this file's own: its bridges, cgroups, ranges and directories never meet another run's.
const tag = `hnr${Math.floor(Math.random() * 90) + 10}`;
const subnet = 100 + Math.floor(Math.random() * 100);

let ingressPort = 0;

interface Launcher {
  child: ChildProcess;
  output: () => string;
  dir: string;
}

async function launch(extraEnv: Record<string, string>, ready: RegExp, args: string[] = []): Promise<Launcher> {
  const dir = mkdtempSync(join(tmpdir(), `${tag}-npm-start-`));
  const port = await freeLoopbackPort();
  ingressPort = await freeLoopbackPort();
  let output = '';
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'svc-control-plane.js'), ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      SVC_CONTAINER_RUNTIME_ENDPOINT: '',
      SVC_DATA: join(dir, 'data'),
      SVC_PORT: String(port),
      SVC_NETWORK_PREFIX: tag,
      SVC_NODE_CIDR: `10.243.${subnet}.0/24`,
      SVC_CLUSTER_CIDR: `10.${subnet}.0.0/16`,
      // The further node's proxy runs in its namespace; the host's nftables belong to other tests' clusters.
      SVC_SERVICE_PROXY: 'namespaced',
      // Ports of this run's own: other tests' clusters may run an ingress controller or metrics server too.
      SVC_INGRESS_HTTP_PORT: String(ingressPort),
      SVC_INGRESS_HTTPS_PORT: String(await freeLoopbackPort()),
      SVC_METRICS_SERVER_PORT: String(await freeLoopbackPort()),
      NO_COLOR: '1',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  await eventually(async () => expect(output).toMatch(ready), 180_000, 250);
  return { child, output: () => output, dir };
}

async function stop(launcher: Launcher | undefined): Promise<void> {
  if (!launcher) return;
  const { child } = launcher;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

describeAsRoot('npm start: a node on a container runtime of its own', () => {
  let started: Launcher;
  const env = () => ({ KUBECONFIG: join(started.dir, 'data', 'svcconfig'), HOME: started.dir });

  beforeAll(async () => {
    // A second node in a network namespace of its own: the client pod runs there, the server on either.
    started = await launch({}, /node \S+-2 running pods/, ['--nodes=2']);
  }, 240_000);

  afterAll(async () => {
    await stop(started);
    if (started) rmSync(started.dir, { recursive: true, force: true });
  }, 120_000);

  it('runs the docs’ Deployment of busybox, which a pod on the other node reaches, with the API server at an address pods route to', async () => {
    await kubectl(['create', 'deployment', 'web', '--image=busybox', '--', 'httpd', '-f', '-p', '8080', '-h', '/etc'], env());
    await kubectl(['rollout', 'status', 'deployment/web', '--timeout=120s'], env(), 125_000);
    const pod = JSON.parse((await kubectl(['get', 'pods', '-l', 'app=web', '-o', 'json'], env())).stdout).items[0];
    const webIp: string = pod.status.podIP;
    // The node's pods live below a cgroup of the node's own (so that stopping can remove it whole).
    expect((await cgroupMountPoints()).some((mount) => existsSync(join(mount, tag)))).toBe(true);
    expect(webIp).toMatch(new RegExp(`^10\\.${subnet}\\.`));

    // The kubernetes Service's endpoint is the host's address on the node bridge, not loopback.
    const slice = JSON.parse(
      (await kubectl(['get', 'endpointslices', '-n', 'default', '-l', 'kubernetes.io/service-name=kubernetes', '-o', 'json'], env())).stdout,
    ).items[0];
    const apiAddress: string = slice.endpoints[0].addresses[0];
    const apiPort: number = slice.ports[0].port;
    expect(apiAddress).toBe(`10.243.${subnet}.1`);
    const clusterIP: string = JSON.parse((await kubectl(['get', 'service', 'kubernetes', '-o', 'json'], env())).stdout).spec.clusterIP;

    // The cluster DNS: the kube-dns Service at the range's tenth address, its EndpointSlice at svc-dns on the node network.
    const kubeDns = JSON.parse((await kubectl(['get', 'service', 'kube-dns', '-n', 'kube-system', '-o', 'json'], env())).stdout);
    expect(kubeDns.spec.clusterIP).toBe('10.0.0.10');
    const dnsSlices = JSON.parse(
      (await kubectl(['get', 'endpointslices', '-n', 'kube-system', '-l', 'kubernetes.io/service-name=kube-dns', '-o', 'json'], env())).stdout,
    ).items;
    // Its own slice alone: the EndpointSlice controller adds no placeholder to a Service without a selector.
    expect(
      dnsSlices.map((s: { metadata: { name: string }; endpoints: Array<{ addresses: string[] }> }) => [s.metadata.name, s.endpoints[0].addresses]),
    ).toEqual([['kube-dns-svc-dns', [apiAddress]]]);
    // The default StorageClass, served by the node agents' local path provisioner.
    await eventually(
      async () => {
        const storageClass = JSON.parse((await kubectl(['get', 'storageclass', 'local-path', '-o', 'json'], env())).stdout);
        expect(storageClass).toMatchObject({ provisioner: 'svc.io/local-path', reclaimPolicy: 'Delete', volumeBindingMode: 'WaitForFirstConsumer' });
        expect(storageClass.metadata.annotations['storageclass.kubernetes.io/is-default-class']).toBe('true');
      },
      10_000,
      250,
    );

    const script = [
      'echo "host=$KUBERNETES_SERVICE_HOST port=$KUBERNETES_SERVICE_PORT"',
      `wget -qO- http://${webIp}:8080/hostname`,
      `nc -w 5 ${apiAddress} ${apiPort} </dev/null && echo api-reachable`,
      // The cluster's search domains first (the node's may follow), the cluster DNS alone.
      "sed -n -e 's/^search \\([^ ]* [^ ]* [^ ]*\\).*/search \\1/p' -e '/^nameserver /p' /etc/resolv.conf",
      // svc-dns answers a pod on another node, asked at its endpoint (the ClusterIP is the service proxy's part).
      `nslookup kubernetes.default.svc.cluster.local ${apiAddress} | sed -n 's/^Address: \\([0-9.]*\\)$/dns \\1/p'`,
    ].join('; ');
    const nodes: string[] = JSON.parse((await kubectl(['get', 'nodes', '-o', 'json'], env())).stdout).items.map(
      (n: { metadata: { name: string } }) => n.metadata.name,
    );
    expect(nodes).toHaveLength(2);
    const other = nodes.find((n) => n !== pod.spec.nodeName);
    const overrides = JSON.stringify({ spec: { nodeName: other } });
    await kubectl(['run', 'client', '--image=busybox', '--restart=Never', `--overrides=${overrides}`, '--', 'sh', '-c', script], env());
    await eventually(
      async () => expect(JSON.parse((await kubectl(['get', 'pod', 'client', '-o', 'json'], env())).stdout).status.phase).toBe('Succeeded'),
      60_000,
      500,
    );
    const logs = (await kubectl(['logs', 'client'], env())).stdout;
    expect(logs).toBe(
      `host=${clusterIP} port=443\n${pod.metadata.name}\napi-reachable\nsearch default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.0.0.10\ndns ${clusterIP}\n`,
    );
  }, 240_000);

  it('joins its nodes with a bootstrap token: each node asks for its client certificate, approved and issued by the controller manager', async () => {
    const csrs: Array<{ spec: { username: string; signerName: string }; status?: { conditions?: Array<{ type: string }>; certificate?: string } }> = JSON.parse(
      (await kubectl(['get', 'csr', '-o', 'json'], env())).stdout,
    ).items;
    const nodes: string[] = JSON.parse((await kubectl(['get', 'nodes', '-o', 'json'], env())).stdout).items.map(
      (n: { metadata: { name: string } }) => n.metadata.name,
    );
    const joined = csrs.filter((c) => c.spec.signerName === 'kubernetes.io/kube-apiserver-client-kubelet' && c.spec.username.startsWith('system:bootstrap:'));
    expect(joined).toHaveLength(nodes.length);
    for (const csr of joined) {
      expect(csr.status?.conditions?.map((c) => c.type)).toEqual(['Approved']);
      expect(csr.status?.certificate).toBeDefined();
    }
    // Each node's own connection file names the certificate it was issued; none was given one.
    const written = readFileSync(join(started.dir, 'data', 'node-agent.svcconfig'), 'utf8');
    expect(written).toContain('nodeagent-client-current.pem');
  });

  it("routes a ClusterIP for a pod on the second node and a NodePort on that node's address, through that node's own proxy", async () => {
    await kubectl(['expose', 'deployment', 'web', '--type=NodePort', '--port=80', '--target-port=8080'], env());
    const service = JSON.parse((await kubectl(['get', 'service', 'web', '-o', 'json'], env())).stdout);
    const nodes = JSON.parse((await kubectl(['get', 'nodes', '-o', 'json'], env())).stdout).items as Array<{
      metadata: { name: string };
      status: { addresses: Array<{ type: string; address: string }> };
    }>;
    const second = nodes.find((n) => n.metadata.name.endsWith('-2'));
    const secondAddress = second?.status.addresses.find((a) => a.type === 'InternalIP')?.address;
    expect(secondAddress).toMatch(/^10\.243\./);
    const overrides = JSON.stringify({ spec: { nodeName: second?.metadata.name } });
    // Bounded by busybox's timeout: busybox-static's wget crashes with its own -T.
    const script = `timeout 10 wget -qO- http://${service.spec.clusterIP}/hostname`;
    await kubectl(['run', 'via-cluster-ip', '--image=busybox', '--restart=Never', `--overrides=${overrides}`, '--', 'sh', '-c', script], env());
    await eventually(
      async () => expect(JSON.parse((await kubectl(['get', 'pod', 'via-cluster-ip', '-o', 'json'], env())).stdout).status.phase).toBe('Succeeded'),
      60_000,
      500,
    );
    const webPod = JSON.parse((await kubectl(['get', 'pods', '-l', 'app=web', '-o', 'json'], env())).stdout).items[0].metadata.name;
    expect((await kubectl(['logs', 'via-cluster-ip'], env())).stdout).toBe(`${webPod}\n`);
    // From the host, the NodePort on the second node's address: only that node's proxy answers it.
    const nodePort: number = service.spec.ports[0].nodePort;
    await eventually(
      async () => {
        const response = await fetch(`http://${secondAddress}:${nodePort}/hostname`, { signal: AbortSignal.timeout(3_000) });
        expect(await response.text()).toBe(`${webPod}\n`);
      },
      30_000,
      500,
    );
  }, 120_000);

  it('answers kubectl top through the metrics server, and routes an Ingress of the default class to the web pods', async () => {
    // The metrics server has a rate once it has scraped each node twice (every 15 s).
    await eventually(
      async () => {
        const { stdout } = await kubectl(['top', 'nodes', '--no-headers'], env());
        expect(stdout.trim().split('\n')).toHaveLength(2);
      },
      90_000,
      2_000,
    );
    await kubectl(['create', 'ingress', 'web', '--rule=web.example/*=web:80'], env());
    const webPod = JSON.parse((await kubectl(['get', 'pods', '-l', 'app=web', '-o', 'json'], env())).stdout).items[0].metadata.name;
    const get = () =>
      new Promise<string>((resolve, reject) => {
        const request = httpRequest(
          { host: '127.0.0.1', port: ingressPort, path: '/hostname', headers: { Host: 'web.example' }, timeout: 3_000 },
          (response) => {
            let body = '';
            response.on('data', (chunk: Buffer) => (body += chunk.toString()));
            response.on('end', () => resolve(`${response.statusCode} ${body}`));
          },
        );
        request.on('timeout', () => request.destroy(new Error('timed out')));
        request.on('error', reject);
        request.end();
      });
    await eventually(async () => expect(await get()).toBe(`200 ${webPod}\n`), 30_000, 500);
  }, 150_000);

  it('imports an image archive dropped into .data/images while it runs', async () => {
    const archive = join(started.dir, 'data', 'images', `${tag}-tool.tar`);
    writeFileSync(archive, await busyboxImageArchive({ references: [`${tag}.local/tool:1`] }));
    await eventually(async () => expect(started.output()).toContain(`imported the images of ${archive}`), 30_000, 250);
    await kubectl(
      // IfNotPresent (a tag other than latest): the first node has it, a further node pulls it from the first one's mirror.
      ['run', 'tool', `--image=${tag}.local/tool:1`, '--restart=Never', '--', 'sh', '-c', 'echo from a dropped archive'],
      env(),
    );
    await eventually(
      async () => {
        const pod = JSON.parse((await kubectl(['get', 'pod', 'tool', '-o', 'json'], env())).stdout);
        expect(JSON.stringify({ node: pod.spec.nodeName, status: pod.status })).toMatch(/"phase":"Succeeded"/);
      },
      60_000,
      500,
    );
    expect((await kubectl(['logs', 'tool'], env())).stdout).toBe('from a dropped archive\n');
  }, 90_000);

  it('lets a pod of the Node.js base image made at start authenticate to the API server with its ServiceAccount token and verify it with ca.crt', async () => {
    const slice = JSON.parse(
      (await kubectl(['get', 'endpointslices', '-n', 'default', '-l', 'kubernetes.io/service-name=kubernetes', '-o', 'json'], env())).stdout,
    ).items[0];
    // The endpoint's address, not the ClusterIP: routing ClusterIPs is the service proxy's part.
    const script = [
      "const fs = require('fs'); const dir = '/var/run/secrets/kubernetes.io/serviceaccount/';",
      "const body = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });",
      'const req = require("https").request({ host: process.env.API_HOST, port: process.env.API_PORT, method: "POST", path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",',
      '  ca: fs.readFileSync(dir + "ca.crt"), headers: { authorization: "Bearer " + fs.readFileSync(dir + "token", "utf8"), "content-type": "application/json" } },',
      '  (res) => { let t = ""; res.on("data", (c) => (t += c)); res.on("end", () => console.log(res.statusCode, JSON.parse(t).status.userInfo.username)); });',
      'req.on("error", (e) => { console.log("error", e.message); process.exit(1); }); req.end(body);',
    ].join('\n');
    const overrides = JSON.stringify({
      spec: {
        containers: [
          {
            name: 'whoami',
            image: nodeBaseImageName(),
            command: ['node', '-e', script],
            env: [
              { name: 'API_HOST', value: slice.endpoints[0].addresses[0] },
              { name: 'API_PORT', value: String(slice.ports[0].port) },
            ],
          },
        ],
      },
    });
    await kubectl(['run', 'whoami', `--image=${nodeBaseImageName()}`, '--restart=Never', `--overrides=${overrides}`], env());
    await eventually(
      async () => {
        const pod = JSON.parse((await kubectl(['get', 'pod', 'whoami', '-o', 'json'], env())).stdout);
        expect(JSON.stringify({ node: pod.spec.nodeName, status: pod.status })).toMatch(/"phase":"(Succeeded|Failed)"/);
      },
      60_000,
      500,
    );
    expect((await kubectl(['logs', 'whoami'], env())).stdout).toBe('201 system:serviceaccount:default:default\n');
  }, 90_000);

  it('stops leaving no mount, bridge or cgroup behind', async () => {
    await stop(started);
    const data = join(started.dir, 'data');
    const mounts = readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .filter((line) => line.includes(data));
    expect(mounts).toEqual([]);
    expect(existsSync(`/sys/class/net/${tag}0`)).toBe(false);
    expect(existsSync(`/sys/class/net/${tag}cni0`)).toBe(false);
    expect(existsSync(`/run/netns/${tag}-node2`)).toBe(false);
    const left = (await cgroupMountPoints()).filter((mount) => existsSync(join(mount, tag)));
    expect(left).toEqual([]);
    expect(started.output()).not.toMatch(/stopping the container runtime:/);
  }, 120_000);
});

describeAsRoot('npm start without containerd', () => {
  it('says in one line what to install, and runs the control plane without a node', async () => {
    // A PATH with no containerd, runc or apt-get on it: the packages are missing and cannot be installed.
    const bin = mkdtempSync(join(tmpdir(), `${tag}-path-`));
    mkdirSync(join(bin, 'empty'));
    let launcher: Launcher | undefined;
    try {
      launcher = await launch({ PATH: join(bin, 'empty') }, /Control plane running/);
      const lines = launcher
        .output()
        .split('\n')
        .filter((line) => /containerd/.test(line));
      expect(lines).toEqual([expect.stringMatching(/^No container runtime: .*containerd.*"apt-get install -y containerd runc".*Pods will not run/)]);
    } finally {
      await stop(launcher);
      if (launcher) rmSync(launcher.dir, { recursive: true, force: true });
      rmSync(bin, { recursive: true, force: true });
    }
  }, 120_000);
});

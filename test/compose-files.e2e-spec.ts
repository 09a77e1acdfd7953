// The compose files of several API servers on a replicated store (docker/etcd.yml, docker/mongodb-replica-set.yml),
// read as compose reads them (YAML merge keys, `${VAR:-default}` taken at its default): every svc process's
// command parses with that process's own flag parser, the stores are three members that name each other,
// both API servers share the certificates, and the components name both API servers. Bringing them up needs
// an image registry this machine does not reach; the single-server file is brought up by containers.e2e-spec.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { parseApiServerOptions, parseControllerManagerOptions, parseSchedulerOptions } from '@svc/options';
import { mongoUriFromServers, parseEtcdEndpoints } from '@svc/storage';

interface Service {
  command?: string[];
  volumes?: string[];
  depends_on?: Record<string, unknown> | string[];
  healthcheck?: { test?: string[] };
}

function load(file: string): Record<string, Service> {
  const text = readFileSync(join(__dirname, '..', 'docker', file), 'utf8').replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');
  return (parse(text, { merge: true }) as { services: Record<string, Service> }).services;
}

const parsers: Record<string, (argv: readonly string[]) => { action: string }> = {
  'svc-apiserver': parseApiServerOptions,
  'svc-controller-manager': parseControllerManagerOptions,
  'svc-scheduler': parseSchedulerOptions,
};

function flagsOf(service: Service): Record<string, string> {
  return Object.fromEntries((service.command ?? []).slice(1).map((arg) => arg.replace(/^--/, '').split(/=(.*)/s, 2) as [string, string]));
}

describe.each([
  ['etcd.yml', ['etcd-0', 'etcd-1', 'etcd-2']],
  ['mongodb-replica-set.yml', ['mongodb-0', 'mongodb-1', 'mongodb-2']],
])('docker/%s', (file, members) => {
  const services = load(file);

  test('every svc command parses with its own flags', () => {
    for (const [name, service] of Object.entries(services)) {
      const [program, ...args] = service.command ?? [];
      const parser = parsers[program];
      if (parser === undefined) continue;
      expect([name, parser(args).action]).toEqual([name, 'run']);
    }
  });

  test('three store members that know each other, and two API servers on all three sharing certificates', () => {
    for (const member of members) expect(services[member]).toBeDefined();
    const apiServers = ['apiserver-a', 'apiserver-b'].map((n) => services[n]);
    for (const server of apiServers) {
      const flags = flagsOf(server);
      const servers = flags['store-servers'].split(',');
      if (file === 'etcd.yml') {
        expect(flags['storage-backend']).toBe('store3');
        expect(parseEtcdEndpoints(servers).map((e) => e.target)).toEqual(members.map((m) => `${m}:2379`));
      } else {
        expect(flags['storage-backend']).toBe('mongodb');
        const uri = mongoUriFromServers(servers);
        for (const member of members) expect(uri).toContain(`${member}:27017`);
        expect(uri).toContain('replicaSet=rs0');
      }
      expect(server.volumes).toContain('svc-config:/var/run/svc');
    }
    // The second writes its connection file apart and starts after the first made the CAs.
    expect(flagsOf(apiServers[1])['svcconfig-out']).toBe('/var/run/svc/apiserver-b.svcconfig');
    expect(Object.keys(apiServers[1].depends_on ?? {})).toEqual(['apiserver-a']);
    if (file === 'etcd.yml') {
      for (const member of members) {
        const flags = flagsOf(services[member]);
        expect(flags['initial-cluster']).toBe(members.map((m) => `${m}=http://${m}:2380`).join(','));
        expect(flags['advertise-client-urls']).toBe(`http://${member}:2379`);
      }
    } else {
      const initiate = (services['mongodb-0'].healthcheck?.test ?? []).join(' ');
      for (const member of members) expect(initiate).toContain(`host: '${member}:27017'`);
    }
  });

  test('the controller manager and the scheduler name both API servers', () => {
    for (const name of ['controller-manager', 'scheduler']) {
      expect(flagsOf(services[name]).master).toBe('https://apiserver-a:6443,https://apiserver-b:6443');
    }
  });
});

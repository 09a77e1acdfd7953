import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { writeIdentityConnectionFile } from '@svc/apiserver';
import type { ApiServerProcess } from './apiserver-process';
import { kubectl, runKubectl, type KubectlResult } from './kubectl-run';

/**
 * kubectl against one API server process as several callers, each through a connection file of its
 * own written in `dir`; a caller without one is the administrator (the server's own file).
 */
export class KubectlIdentities {
  private readonly files = new Map<string, string>();

  constructor(
    private readonly server: ApiServerProcess,
    private readonly dir: string,
  ) {}

  /** The environment kubectl runs in as `who`. */
  env(who: string): Record<string, string> {
    return { KUBECONFIG: this.files.get(who) ?? this.server.kubeconfig, HOME: this.server.dir };
  }

  /** `who` connects with `user`'s kubeconfig entry (a token, or client certificate data). */
  async withUser(who: string, user: Record<string, string>): Promise<string> {
    const file = join(this.dir, `${who}.kubeconfig`);
    const config = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: this.server.url, 'certificate-authority-data': Buffer.from(this.server.ca).toString('base64') } }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'c',
    };
    await writeFile(file, stringify(config), { mode: 0o600 });
    this.files.set(who, file);
    return file;
  }

  /** `who` connects with a client certificate for `user` in `groups`, issued by the server's own client CA. */
  async withCertificate(who: string, user: string, groups: string[] = []): Promise<string> {
    const file = join(this.dir, `${who}.svcconfig`);
    await writeIdentityConnectionFile({ connectionFile: this.server.kubeconfig, certDir: join(this.server.dir, 'certs'), path: file, user, groups });
    this.files.set(who, file);
    return file;
  }

  /** kubectl as `who`; its stdout, or a rejection with its stderr. */
  async run(who: string, ...args: string[]): Promise<string> {
    return (await kubectl(args, this.env(who))).stdout;
  }

  /** kubectl as `who`, which must fail; its result. */
  async fails(who: string, ...args: string[]): Promise<KubectlResult> {
    const res = await runKubectl(args, this.env(who));
    if (res.code === 0) throw new Error(`kubectl ${args.join(' ')} as ${who} succeeded but should have failed:\n${res.stdout}`);
    return res;
  }
}

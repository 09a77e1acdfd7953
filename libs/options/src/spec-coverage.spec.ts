import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FlagTable } from './flag-set/flag-set';
import { API_SERVER_FLAGS } from './sets/apiserver-flags';
import { CLUSTER_SIGNERS, CONTROLLER_MANAGER_FLAGS } from './sets/controller-manager-flags';

type Process = 'apiserver' | 'controller-manager';

const SPEC = join(__dirname, '../../../../shared/spec/2-process-options.md');

/** Spec tokens that stand for other or several real flags. */
const SHORTHAND: Readonly<Record<string, readonly string[]>> = {
  '--cloud-provider-<vendor>-l7lb-src-cidrs': ['--cloud-provider-gce-l7lb-src-cidrs'],
  '--cloud-provider-...': ['--cloud-provider-gce-l7lb-src-cidrs'],
  '--<cloud>-container-registry-config': ['--azure-container-registry-config'],
  '--kube-api-burst': ['--svc-api-burst'],
  '--cluster-signing-<signer>-cert-file': CLUSTER_SIGNERS.map((s) => `--cluster-signing-${s}-cert-file`),
  '--cluster-signing-<signer>-key-file': CLUSTER_SIGNERS.map((s) => `--cluster-signing-${s}-key-file`),
  '--requestheader-*': [
    '--requestheader-client-ca-file',
    '--requestheader-allowed-names',
    '--requestheader-username-headers',
    '--requestheader-group-headers',
    '--requestheader-extra-headers-prefix',
  ],
  '--audit-*-truncate-max-event-size': ['--audit-log-truncate-max-event-size', '--audit-webhook-truncate-max-event-size'],
  '--audit-*-truncate-max-batch-size': ['--audit-log-truncate-max-batch-size', '--audit-webhook-truncate-max-batch-size'],
  '-h': ['--help'],
  '-v': ['--v'],
};

/** Flags the product adds to what spec 2 lists. */
const PRODUCT_FLAGS: Readonly<Record<Process, readonly string[]>> = {
  apiserver: ['--data-dir', '--svcconfig-out', '--help'],
  // Kubernetes' own flag for the cronjob controller's workers, which spec 2 does not list.
  'controller-manager': ['--concurrent-cron-job-syncs'],
};

/** Every flag token of the option tables (and the backing-store paragraph), with the process(es) it belongs to. */
function specFlags(markdown: string): Map<Process, Set<string>> {
  const out = new Map<Process, Set<string>>([
    ['apiserver', new Set()],
    ['controller-manager', new Set()],
  ]);
  let section: Process = 'apiserver';
  for (const line of markdown.split('\n')) {
    if (/^#{2,3} /.test(line)) {
      if (/controller manager/i.test(line)) section = 'controller-manager';
      else if (/API server/i.test(line) || /^## /.test(line)) section = 'apiserver';
      continue;
    }
    let cell: string;
    let processes: Process[] = [section];
    if (line.startsWith('|')) {
      const cells = line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((c) => c.trim());
      if (/^-+$/.test(cells[0]) || cells[0] === 'Option') continue;
      cell = cells[0];
      // The Limits table names its process in the second column.
      if (cells[1] === 'both') processes = ['apiserver', 'controller-manager'];
      else if (cells[1] === 'API server') processes = ['apiserver'];
      else if (cells[1] === 'controller manager') processes = ['controller-manager'];
    } else if (line.startsWith('Backing store options:')) {
      cell = line;
    } else {
      continue;
    }
    for (const [, span] of cell.matchAll(/`([^`]+)`/g)) {
      if (!/^-{1,2}[A-Za-z0-9<>*.-]+$/.test(span)) continue;
      for (const name of SHORTHAND[span] ?? [span]) for (const p of processes) out.get(p)?.add(name);
    }
  }
  return out;
}

function declared(table: FlagTable): Set<string> {
  return new Set(table.groups.flatMap((g) => g.flags.map((f) => `--${f.name}`)));
}

const TABLES: Readonly<Record<Process, FlagTable>> = { apiserver: API_SERVER_FLAGS, 'controller-manager': CONTROLLER_MANAGER_FLAGS };

(existsSync(SPEC) ? describe : describe.skip)('spec 2 coverage', () => {
  const fromSpec = specFlags(existsSync(SPEC) ? readFileSync(SPEC, 'utf8') : '');

  it('finds the option tables', () => {
    expect(fromSpec.get('apiserver')?.size).toBeGreaterThanOrEqual(140);
    expect(fromSpec.get('controller-manager')?.size).toBeGreaterThanOrEqual(130);
  });

  it.each(['apiserver', 'controller-manager'] as const)('declares every %s flag the specification lists', (process) => {
    const have = declared(TABLES[process]);
    const missing = [...(fromSpec.get(process) ?? [])].filter((name) => !have.has(name));
    expect(missing).toEqual([]);
  });

  it.each(['apiserver', 'controller-manager'] as const)('declares no %s flag beyond the specification and the product flags', (process) => {
    const listed = fromSpec.get(process) ?? new Set<string>();
    const extra = [...declared(TABLES[process])].filter((name) => !listed.has(name) && !PRODUCT_FLAGS[process].includes(name));
    expect(extra).toEqual([]);
  });

  it('declares the shorthands -v and -h', () => {
    for (const table of Object.values(TABLES)) {
      const shorthands = table.groups.flatMap((g) => g.flags.map((f) => f.shorthand)).filter(Boolean);
      expect(shorthands.sort()).toEqual(['h', 'v']);
    }
  });
});

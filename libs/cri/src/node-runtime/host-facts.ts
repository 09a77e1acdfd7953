import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const CAP_SYS_RESOURCE = 24n;

/**
 * Whether this process lacks CAP_SYS_RESOURCE (containers, some VMs): runc then cannot give a
 * container an OOM score below its own, so containerd needs `restrict_oom_score_adj`.
 */
export function lacksCapSysResource(status?: string): boolean {
  try {
    const text = status ?? readFileSync('/proc/self/status', 'utf8');
    const effective = /^CapEff:\s*([0-9a-f]+)$/m.exec(text)?.[1];
    return effective === undefined || (BigInt(`0x${effective}`) & (1n << CAP_SYS_RESOURCE)) === 0n;
  } catch {
    return true;
  }
}

const BRIDGE_NF_CALL_IPTABLES = '/proc/sys/net/bridge/bridge-nf-call-iptables';

/**
 * Checks that packets crossing a Linux bridge pass through iptables/nftables (`br_netfilter` and
 * `net.bridge.bridge-nf-call-iptables = 1`): without it, a pod reaching a Service whose endpoint is
 * on its own bridge gets replies that bypass the reverse translation. As root it loads the module
 * and turns the setting on (as k3s does); returns one line saying what it did or what is wrong, or
 * undefined when it was on already.
 */
export function ensureBridgeNetfilter(file = BRIDGE_NF_CALL_IPTABLES): string | undefined {
  const read = () => {
    try {
      return readFileSync(file, 'utf8').trim();
    } catch {
      return undefined;
    }
  };
  let value = read();
  if (value === '1') return undefined;
  const root = process.getuid?.() === 0;
  if (!root) {
    return value === undefined
      ? 'br_netfilter is not loaded: traffic from a pod to a Service on its own node may fail ("modprobe br_netfilter" as root)'
      : 'net.bridge.bridge-nf-call-iptables is 0: traffic from a pod to a Service on its own node may fail ("sysctl -w net.bridge.bridge-nf-call-iptables=1" as root)';
  }
  if (value === undefined) {
    spawnSync('modprobe', ['br_netfilter'], { stdio: 'ignore', timeout: 10_000 });
    value = read();
    if (value === undefined) return 'br_netfilter could not be loaded: traffic from a pod to a Service on its own node may fail';
    if (value === '1') return 'loaded br_netfilter (net.bridge.bridge-nf-call-iptables = 1)';
  }
  try {
    writeFileSync(file, '1');
    return 'set net.bridge.bridge-nf-call-iptables = 1, so that traffic a pod sends to a Service on its own node is translated both ways';
  } catch (error) {
    return `net.bridge.bridge-nf-call-iptables is 0 and could not be set (${(error as Error).message})`;
  }
}

import { readFileSync, statfsSync } from 'node:fs';
import { arch, cpus, hostname, networkInterfaces, release } from 'node:os';

/** Go's GOARCH for this machine, as the `kubernetes.io/arch` label and node info give it. */
export function goArch(): string {
  const map: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x', ia32: '386' };
  return map[arch()] ?? arch();
}

function readTrimmed(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

/** Values of /proc/meminfo, in bytes. */
export function memInfo(): { total: number; available: number } {
  const text = readTrimmed('/proc/meminfo');
  const value = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB$`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { total: value('MemTotal'), available: value('MemAvailable') };
}

export function filesystem(path: string): { capacity: number; available: number; inodes: number; inodesFree: number } {
  try {
    const fs = statfsSync(path);
    return { capacity: fs.blocks * fs.bsize, available: fs.bavail * fs.bsize, inodes: fs.files, inodesFree: fs.ffree };
  } catch {
    return { capacity: 0, available: 0, inodes: 0, inodesFree: 0 };
  }
}

export function processCount(): { running: number; max: number } {
  const max = Number(readTrimmed('/proc/sys/kernel/pid_max')) || 32768;
  const loadavg = readTrimmed('/proc/loadavg').split(' ')[3] ?? '0/0';
  return { running: Number(loadavg.split('/')[1]) || 0, max };
}

/** What of the host a node status reports on, read at once. */
export interface HostUsage {
  memory: { total: number; available: number };
  filesystem: { capacity: number; available: number };
  pids: { running: number; max: number };
}

export function hostUsage(rootDir: string): HostUsage {
  return { memory: memInfo(), filesystem: filesystem(rootDir), pids: processCount() };
}

function osImage(): string {
  const text = readTrimmed('/etc/os-release');
  const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(text)?.[1];
  return pretty ?? 'Linux';
}

export interface HostInfo {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  operatingSystem: string;
  architecture: string;
  cpus: number;
  hostname: string;
}

export function hostInfo(): HostInfo {
  return {
    machineID: readTrimmed('/etc/machine-id') || readTrimmed('/var/lib/dbus/machine-id'),
    systemUUID: readTrimmed('/sys/class/dmi/id/product_uuid').toLowerCase(),
    bootID: readTrimmed('/proc/sys/kernel/random/boot_id'),
    kernelVersion: release(),
    osImage: osImage(),
    operatingSystem: 'linux',
    architecture: goArch(),
    cpus: cpus().length,
    hostname: hostname().toLowerCase(),
  };
}

/** The node's address when none is given: the first non-loopback IPv4 address, else loopback. */
export function defaultNodeIP(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
  }
  return '127.0.0.1';
}

/** Whether swap is on (failSwapOn refuses to start then). */
export function swapOn(): boolean {
  return readTrimmed('/proc/swaps').split('\n').length > 1;
}

#!/usr/bin/env node
'use strict';
// Part of `npm test`: the node agent's end-to-end tests start a containerd of their own and need
// Debian's containerd, runc, CNI plugins and a static busybox. As root on a Debian machine, install
// what is missing; elsewhere say why those tests will skip. Never fails the test command itself.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');

const PACKAGES = {
  containerd: '/usr/bin/containerd',
  runc: '/usr/sbin/runc',
  'containernetworking-plugins': '/usr/lib/cni/bridge',
  'busybox-static': '/bin/busybox',
};

function missingPackages() {
  return Object.entries(PACKAGES)
    .filter(([, file]) => !fs.existsSync(file))
    .map(([name]) => name);
}

function main() {
  let missing = missingPackages();
  if (missing.length === 0) return;
  const command = `apt-get install -y ${missing.join(' ')}`;
  if (process.platform !== 'linux' || typeof process.getuid !== 'function' || process.getuid() !== 0 || !fs.existsSync('/usr/bin/apt-get')) {
    console.log(`Container runtime tests will skip: ${missing.join(', ')} missing; install with "${command}" as root.`);
    return;
  }
  console.log(`Installing ${missing.join(', ')} for the container runtime tests`);
  const install = () =>
    execFileSync('apt-get', ['-o', 'DPkg::Lock::Timeout=600', 'install', '-y', '--no-install-recommends', ...missing], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  try {
    install();
  } catch {
    // A fresh machine has no package lists yet.
    try {
      execFileSync('apt-get', ['-o', 'DPkg::Lock::Timeout=600', 'update'], { stdio: 'inherit' });
      install();
    } catch (error) {
      console.log(`Could not install ${missing.join(', ')} (${error.message}); the container runtime tests will skip.`);
    }
  }
  missing = missingPackages();
  if (missing.length > 0) console.log(`Still missing: ${missing.join(', ')}`);
}

main();

// Part of `npm test`: the node agent's end-to-end tests start a containerd of their own and need
// Debian's containerd, runc, CNI plugins and a static busybox, the packages `npm start` installs for
// its own node; the store3 tests start etcd clusters of their own (etcd-server) and cut a member off
// with nftables; the official Python client's test needs Debian's python3-kubernetes. As root on a Debian machine, install what is missing; elsewhere say why those tests
// will skip. Never fails the test command itself.
import { ensureDebianPackages, RUNTIME_PACKAGES, runtimeHostProblem, type DebianPackage } from '@svc/cri';
import { PYTHON_CLIENT_PACKAGE } from './support/python-client';

const STORE3_PACKAGES: readonly DebianPackage[] = [
  { name: 'etcd-server', provides: 'etcd' },
  { name: 'nftables', provides: 'nft' },
];

const problem =
  runtimeHostProblem() ??
  ensureDebianPackages([...RUNTIME_PACKAGES, ...STORE3_PACKAGES, PYTHON_CLIENT_PACKAGE], {
    onInstall: console.log,
    purpose: 'for the container runtime, etcd and Python client tests',
  });
if (problem) console.log(`Container runtime and etcd tests will skip: ${problem}`);

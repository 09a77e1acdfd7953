// Part of `npm test`: the node agent's end-to-end tests start a containerd of their own and need
// Debian's containerd, runc, CNI plugins and a static busybox, the packages `npm start` installs for
// its own node; the store3 tests start etcd clusters of their own (etcd-server) and cut a member off
// with nftables. As root on a Debian machine, install what is missing; elsewhere say why those tests
// will skip. Never fails the test command itself.
import { ensureDebianPackages, RUNTIME_PACKAGES, runtimeHostProblem, type DebianPackage } from '@svc/cri';

const STORE3_PACKAGES: readonly DebianPackage[] = [
  { name: 'etcd-server', provides: 'etcd' },
  { name: 'nftables', provides: 'nft' },
];

const problem =
  runtimeHostProblem() ??
  ensureDebianPackages([...RUNTIME_PACKAGES, ...STORE3_PACKAGES], { onInstall: console.log, purpose: 'for the container runtime and etcd tests' });
if (problem) console.log(`Container runtime and etcd tests will skip: ${problem}`);

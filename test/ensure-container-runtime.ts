// Part of `npm test`: the node agent's end-to-end tests start a containerd of their own and need
// Debian's containerd, runc, CNI plugins and a static busybox, the packages `npm start` installs for
// its own node. As root on a Debian machine, install what is missing; elsewhere say why those tests
// will skip. Never fails the test command itself.
import { ensureDebianPackages, RUNTIME_PACKAGES, runtimeHostProblem } from '@svc/cri';

const problem = runtimeHostProblem() ?? ensureDebianPackages(RUNTIME_PACKAGES, { onInstall: console.log, purpose: 'for the container runtime tests' });
if (problem) console.log(`Container runtime tests will skip: ${problem}`);

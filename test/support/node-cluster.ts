import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startContainerd, type ContainerdProcess, type TestContainerdOptions } from '@svc/cri/testing';
import { startApiServerProcess, type ApiServerProcess } from './apiserver-process';
import { kubectl } from './kubectl-run';
import { startNodeAgentProcess, type NodeAgentProcess, type StartNodeAgentOptions } from './node-agent-process';

/** A /24 of its own for each run, so that concurrent runs never share a bridge subnet. */
export function randomPodCidr(): string {
  return `10.${200 + Math.floor(Math.random() * 50)}.${Math.floor(Math.random() * 250)}.0/24`;
}

export interface NodeCluster {
  containerd: ContainerdProcess;
  apiserver: ApiServerProcess;
  agent: NodeAgentProcess;
  env(): Record<string, string>;
  /** `kubectl run` of a busybox pod bound to the node (`spec.nodeName`), with extra overrides of its spec. */
  runPod(name: string, command: string[], spec?: Record<string, unknown>): Promise<void>;
  getPod(name: string): Promise<any>;
  /** `kubectl apply` of objects (YAML or JSON documents); pods without a node are bound to this one. */
  apply(...objects: unknown[]): Promise<void>;
  stop(): Promise<void>;
}

export interface NodeClusterOptions {
  apiserverArgs?: string[];
  /** The API server's address (loopback by default): one that a node in a network namespace reaches. */
  apiserverBindAddress?: string;
  /** The API server issues service account tokens (a signing key made in its directory). */
  serviceAccountTokens?: boolean;
  agent?: Partial<StartNodeAgentOptions>;
  /** How the node's containerd runs (in a network namespace of the test's, with registry hosts, ...). */
  containerd?: TestContainerdOptions;
  /**
   * Runs while the agent starts (before it is ready), with what the agent has logged so far: an
   * administrator creating the Node of a `registerNode: false` agent once it says it waits.
   */
  whileAgentStarts?: (apiserver: ApiServerProcess, agentLog: () => string) => Promise<void>;
}

/** containerd, an API server reaching node agents on loopback, and one node agent with a pod CIDR of its own. */
export async function startNodeCluster(options: NodeClusterOptions = {}): Promise<NodeCluster> {
  const [containerd, apiserver] = await Promise.all([
    startContainerd(options.containerd),
    startApiServerProcess({
      serviceAccountTokens: options.serviceAccountTokens,
      bindAddress: options.apiserverBindAddress,
      args: ['--nodeagent-preferred-address-types=InternalIP', ...(options.apiserverArgs ?? [])],
    }),
  ]);
  let agent: NodeAgentProcess;
  try {
    let agentLog = '';
    const starting = startNodeAgentProcess(apiserver, {
      endpoint: containerd.endpoint,
      onStderr: (stderr) => (agentLog = stderr),
      ...options.agent,
      config: { podCIDR: randomPodCidr(), ...(options.agent?.config ?? {}) },
    });
    // Handled below; an early failure must not surface as an unhandled rejection meanwhile.
    void starting.catch(() => undefined);
    try {
      await options.whileAgentStarts?.(apiserver, () => agentLog);
    } catch (error) {
      await starting.then((a) => a.cleanup()).catch(() => undefined);
      throw error;
    }
    agent = await starting;
  } catch (error) {
    await containerd.stop();
    await apiserver.stop();
    throw error;
  }
  const env = () => apiserver.kubectlEnv;
  return {
    containerd,
    apiserver,
    agent,
    env,
    async runPod(name, command, spec = {}) {
      const overrides = JSON.stringify({ spec: { nodeName: agent.nodeName, ...spec } });
      await kubectl(['run', name, '--image=busybox:1.36', `--overrides=${overrides}`, '--', ...command], env());
    },
    async getPod(name) {
      return JSON.parse((await kubectl(['get', 'pod', name, '-o', 'json'], env())).stdout);
    },
    async apply(...objects) {
      for (const o of objects) {
        const object = o as { kind?: string; spec?: Record<string, unknown> };
        if (object.kind === 'Pod' && object.spec && !object.spec.nodeName) object.spec.nodeName = agent.nodeName;
      }
      const file = join(apiserver.dir, `manifest-${Date.now()}-${Math.random().toString(36).slice(2)}.yaml`);
      await writeFile(file, objects.map((o) => stringify(o)).join('---\n'));
      await kubectl(['apply', '-f', file], env());
    },
    async stop() {
      // Every step runs even when one fails, so that no process outlives the test.
      const results = await Promise.allSettled([agent.cleanup().finally(() => containerd.stop()), apiserver.stop()]);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}

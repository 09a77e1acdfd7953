import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { NodeAgent } from '../node-agent';
import { containerLogBytesRead } from './container-logs';

/** `/metrics`: the agent's process metrics and what it runs, in the Prometheus text format. */
export class NodeAgentMetrics {
  private readonly registry = new Registry();

  constructor(agent: NodeAgent) {
    collectDefaultMetrics({ register: this.registry });
    const registry = this.registry;
    for (const metric of agent.startMetrics.all()) registry.registerMetric(metric);
    registry.registerMetric(containerLogBytesRead);
    new Gauge({
      name: 'nodeagent_running_pods',
      help: 'Number of pods the node agent runs',
      registers: [registry],
      collect() {
        this.set(agent.pods.pods().filter((p) => p.status?.phase === 'Running').length);
      },
    });
    new Gauge({
      name: 'nodeagent_running_containers',
      help: 'Number of containers by state, as the runtime reports them',
      labelNames: ['container_state'],
      registers: [registry],
      async collect() {
        this.reset();
        const containers = await agent.cri.listContainers().catch(() => []);
        const counts = new Map<string, number>();
        for (const c of containers) counts.set(c.state, (counts.get(c.state) ?? 0) + 1);
        for (const [state, count] of counts) this.set({ container_state: state.replace('CONTAINER_', '').toLowerCase() }, count);
      },
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}

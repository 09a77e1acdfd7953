import { fieldErrorToString } from '@svc/api';
import { stringify } from 'yaml';
import { ConfigFileError, defaultNodeAgentConfiguration, parseCredentialProviderConfig, parseNodeAgentConfiguration } from './load-config-file';
import { nodeAgentConfigurationRules, type NodeAgentConfiguration } from './node-agent-configuration';

const header = { apiVersion: 'nodeagent.config.svc.io/v1beta1', kind: 'NodeAgentConfiguration' };

function parse(fields: Record<string, unknown>): NodeAgentConfiguration {
  return parseNodeAgentConfiguration('/etc/agent.yaml', stringify({ ...header, ...fields }));
}

function refusal(fields: Record<string, unknown>): string {
  try {
    parse(fields);
  } catch (error) {
    if (error instanceof ConfigFileError) return error.message;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

/** The cross-field rules alone, on a defaulted configuration with these fields: each error as the file's refusal words it. */
function ruleErrors(fields: Record<string, unknown>): string[] {
  return nodeAgentConfigurationRules({ ...defaultNodeAgentConfiguration(), ...fields }).map((e) => fieldErrorToString(e));
}

describe('the node agent configuration file', () => {
  it('defaults every field the agent reads, and takes the report frequency from an explicit update frequency', () => {
    const defaults = defaultNodeAgentConfiguration();
    expect(defaults).toMatchObject({ port: 10250, healthzPort: 10248, maxPods: 110, syncFrequency: '1m', registerNode: true, cgroupsPerQOS: true });
    expect(parse({ nodeStatusUpdateFrequency: '3s' })).toMatchObject({ nodeStatusUpdateFrequency: '3s', nodeStatusReportFrequency: '3s' });
    expect(parse({ nodeStatusUpdateFrequency: '3s', nodeStatusReportFrequency: '1m' }).nodeStatusReportFrequency).toBe('1m');
  });

  it.each<[string, string | Record<string, unknown>, RegExp]>([
    ['YAML that does not parse', 'kind: [', /^\/etc\/agent\.yaml: cannot be parsed: /],
    ['a list instead of an object', '- 1', /must hold a NodeAgentConfiguration object/],
    ['another kind', { ...header, kind: 'KubeletConfiguration' }, /kind: must be "NodeAgentConfiguration", got "KubeletConfiguration"/],
    ['another API version', { ...header, apiVersion: 'kubelet.config.k8s.io/v1beta1' }, /apiVersion: must be "nodeagent\.config\.svc\.io\/v1beta1"/],
    ['an unknown field (one line, counting the others)', { ...header, maxPod: 10, portt: 1 }, /unknown field "maxPod" \(and 1 more\)$/],
    ['a bad duration, in words', { ...header, syncFrequency: 'soon' }, /syncFrequency.*must be a duration such as "90s", "1m30s" or "2h"/],
    ['a setting whose behaviour the agent lacks', { ...header, evictionHard: { 'memory.available': '1Gi' } }, /evictionHard: Unsupported value.*eviction/],
  ])('refuses %s with one line naming the file and the field', (_name, doc, message) => {
    const text = typeof doc === 'string' ? doc : stringify(doc);
    expect(() => parseNodeAgentConfiguration('/etc/agent.yaml', text)).toThrow(ConfigFileError);
    try {
      parseNodeAgentConfiguration('/etc/agent.yaml', text);
    } catch (error) {
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain('\n');
    }
  });

  it('accepts an unsupported setting left at its default', () => {
    expect(() => parse({ readOnlyPort: 0, cgroupDriver: 'cgroupfs' })).not.toThrow();
    expect(refusal({ readOnlyPort: 10255 })).toMatch(/readOnlyPort.*read-only port/);
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'image GC thresholds out of order',
      { imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 60 },
      'imageGCLowThresholdPercent: must be less than imageGCHighThresholdPercent',
    ],
    ['the same iptables bits', { iptablesMasqueradeBit: 14, iptablesDropBit: 14 }, 'iptablesDropBit: must be different from iptablesMasqueradeBit'],
    ['more pods per core than pods', { podsPerCore: 200 }, 'podsPerCore: must not be more than maxPods'],
    [
      'contention profiling without debugging handlers',
      { enableContentionProfiling: true, enableDebuggingHandlers: false },
      'enableContentionProfiling: needs enableDebuggingHandlers',
    ],
    ['a CPU manager policy without its gate', { cpuManagerPolicy: 'static' }, 'cpuManagerPolicy: needs the CPUManager feature gate'],
    ['a topology scope without its gate', { topologyManagerScope: 'pod' }, 'topologyManagerScope: needs the TopologyManager feature gate'],
    ['a QoS reservation of cpu', { qosReserved: { cpu: '50%' }, featureGates: { QOSReserved: true } }, 'qosReserved[cpu]: Unsupported value'],
    [
      'a QoS reservation over 100%',
      { qosReserved: { memory: '150%' }, featureGates: { QOSReserved: true } },
      'qosReserved[memory]: must be a percentage between 0% and 100%',
    ],
    [
      'critical pods given longer than all pods',
      { shutdownGracePeriod: '10s', shutdownGracePeriodCriticalPods: '20s' },
      'shutdownGracePeriodCriticalPods: must not be more than shutdownGracePeriod',
    ],
    [
      'shutdown periods by priority beside the plain ones',
      {
        shutdownGracePeriod: '10s',
        shutdownGracePeriodByPodPriority: [{ priority: 1, shutdownGracePeriodSeconds: 5 }],
        featureGates: { GracefulNodeShutdown: true },
      },
      'shutdownGracePeriodByPodPriority: must be empty when shutdownGracePeriod or shutdownGracePeriodCriticalPods is set',
    ],
    [
      'a log monitor interval under 3s',
      { containerLogMonitorInterval: '1s' },
      'containerLogMonitorInterval: must be a positive time duration greater than or equal to 3s',
    ],
    ['a lease of no duration', { nodeLeaseDurationSeconds: 0 }, 'nodeLeaseDurationSeconds: must be greater than 0'],
    ['a reservation of an unknown resource', { systemReserved: { gpu: '1' } }, 'systemReserved[gpu]: Unsupported value'],
    [
      'json logging with vmodule',
      { logging: { format: 'json', vmodule: [{ filePattern: 'x', verbosity: 2 }] } },
      'logging.vmodule: is only supported with the text format',
    ],
    ['a TLS version Go does not know', { tlsMinVersion: 'VersionTLS14' }, 'tlsMinVersion: Unsupported value'],
    ['a certificate without its key', { tlsCertFile: '/etc/agent.crt' }, 'tlsCertFile: tlsCertFile and tlsPrivateKeyFile must be given together'],
  ])('rules out %s', (_name, fields, expected) => {
    // `field: detail`, as the refusal says it (`field: Invalid value: ...: detail`).
    const [field, detail] = [expected.slice(0, expected.indexOf(': ')), expected.slice(expected.indexOf(': ') + 2)];
    expect(ruleErrors(fields).filter((e) => e.startsWith(`${field}: `) && e.includes(detail))).toHaveLength(1);
  });

  it('finds nothing wrong with the defaults', () => {
    expect(ruleErrors({})).toEqual([]);
  });
});

describe('the credential provider configuration file', () => {
  it('reads providers and refuses one without its required fields', () => {
    const doc = {
      apiVersion: 'nodeagent.config.svc.io/v1beta1',
      kind: 'CredentialProviderConfig',
      providers: [{ name: 'ecr', matchImages: ['*.dkr.ecr.*.amazonaws.com'], defaultCacheDuration: '12h', apiVersion: 'credentialprovider.kubelet.k8s.io/v1' }],
    };
    expect(parseCredentialProviderConfig('/etc/providers.yaml', stringify(doc)).providers).toHaveLength(1);
    const missing = { ...doc, providers: [{ name: 'ecr' }] };
    expect(() => parseCredentialProviderConfig('/etc/providers.yaml', stringify(missing))).toThrow(/^\/etc\/providers\.yaml: providers\[0\]/);
  });
});

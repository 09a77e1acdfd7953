import { daemonPodTolerations, withDaemonPodTolerations } from './daemon-pod-tolerations';

const exists = (key: string, effect: string) => ({ key, operator: 'Exists', effect });

describe('the tolerations a daemon pod gets', () => {
  it('not-ready and unreachable NoExecute without tolerationSeconds; pressure and unschedulable NoSchedule', () => {
    expect(daemonPodTolerations(false)).toEqual([
      exists('node.kubernetes.io/not-ready', 'NoExecute'),
      exists('node.kubernetes.io/unreachable', 'NoExecute'),
      exists('node.kubernetes.io/disk-pressure', 'NoSchedule'),
      exists('node.kubernetes.io/memory-pressure', 'NoSchedule'),
      exists('node.kubernetes.io/pid-pressure', 'NoSchedule'),
      exists('node.kubernetes.io/unschedulable', 'NoSchedule'),
    ]);
  });

  it('network-unavailable NoSchedule too for a pod on the host network', () => {
    expect(daemonPodTolerations(true)).toContainEqual(exists('node.kubernetes.io/network-unavailable', 'NoSchedule'));
    expect(daemonPodTolerations(false)).not.toContainEqual(exists('node.kubernetes.io/network-unavailable', 'NoSchedule'));
  });

  it("keeps the template's own tolerations and replaces a matching one, so a tolerationSeconds cannot make the daemon evictable", () => {
    const spec = withDaemonPodTolerations({
      containers: [],
      tolerations: [
        { key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    });
    expect(spec.tolerations).toEqual([
      { key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' },
      exists('node.kubernetes.io/not-ready', 'NoExecute'),
      exists('node.kubernetes.io/unreachable', 'NoExecute'),
      exists('node.kubernetes.io/disk-pressure', 'NoSchedule'),
      exists('node.kubernetes.io/memory-pressure', 'NoSchedule'),
      exists('node.kubernetes.io/pid-pressure', 'NoSchedule'),
      exists('node.kubernetes.io/unschedulable', 'NoSchedule'),
    ]);
  });
});

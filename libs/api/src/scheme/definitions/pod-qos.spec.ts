import { podQosClass, podQosClassOf } from './pod-qos';

const c = (resources?: object) => ({ name: 'c', image: 'i', ...(resources ? { resources } : {}) });

describe('pod QoS class (Kubernetes GetPodQOS)', () => {
  it('is BestEffort without requests or limits of CPU or memory', () => {
    expect(podQosClass({ containers: [c()] })).toBe('BestEffort');
    expect(podQosClass({ containers: [c({ requests: { 'example.com/gpu': '1' } })] })).toBe('BestEffort');
  });

  it('is Guaranteed when every container has equal CPU and memory requests and limits', () => {
    const equal = { requests: { cpu: '500m', memory: '128Mi' }, limits: { cpu: '0.5', memory: '128Mi' } };
    expect(podQosClass({ containers: [c(equal), c(equal)] })).toBe('Guaranteed');
    expect(podQosClass({ initContainers: [c(equal)], containers: [c(equal)] })).toBe('Guaranteed');
  });

  it('is Burstable otherwise', () => {
    expect(podQosClass({ containers: [c({ requests: { cpu: '100m' } })] })).toBe('Burstable');
    expect(podQosClass({ containers: [c({ limits: { cpu: '1' }, requests: { cpu: '1' } })] })).toBe('Burstable');
    const equal = { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } };
    expect(podQosClass({ containers: [c(equal), c()] })).toBe('Burstable');
    expect(podQosClass({ containers: [c({ requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '2', memory: '1Gi' } })] })).toBe('Burstable');
  });

  it('compares amounts exactly, as Quantity.Cmp does, not as floating point sums', () => {
    // 700m is 0.7000000000000001 as 700 * 0.001 in floating point, 0.7 is not: they are one amount.
    const written = { requests: { cpu: '700m', memory: '64Mi' }, limits: { cpu: '0.7', memory: '67108864' } };
    expect(podQosClass({ containers: [c(written)] })).toBe('Guaranteed');
    const split = { requests: { cpu: '350m', memory: '32Mi' }, limits: { cpu: '0.35', memory: '32Mi' } };
    expect(podQosClass({ initContainers: [c(split)], containers: [c(split), c(split)] })).toBe('Guaranteed');
    // Below a thousandth the amounts still differ: rounding to millicores would call these equal.
    expect(podQosClass({ containers: [c({ requests: { cpu: '1500u', memory: '1Gi' }, limits: { cpu: '2m', memory: '1Gi' } })] })).toBe('Burstable');
  });

  it('counts init containers: one without limits makes the pod Burstable', () => {
    const equal = { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } };
    expect(podQosClass({ initContainers: [c({ requests: { cpu: '100m' } })], containers: [c(equal)] })).toBe('Burstable');
    expect(podQosClass({ initContainers: [c({ limits: { memory: '1Gi' } })], containers: [c()] })).toBe('Burstable');
  });

  it('takes the class stored at creation over the spec, and computes it only for a pod without one (GetPodQOS)', () => {
    const equal = { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } };
    expect(podQosClassOf({ spec: { containers: [c(equal)] }, status: { qosClass: 'Burstable' } })).toBe('Burstable');
    expect(podQosClassOf({ spec: { containers: [c(equal)] } })).toBe('Guaranteed');
    expect(podQosClassOf({ spec: { containers: [c()] }, status: { qosClass: 'nonsense' } })).toBe('BestEffort');
  });
});

import { quantityValue } from '../quantity';
import { podQosClass } from './pod-qos';

const c = (resources?: object) => ({ name: 'c', image: 'i', ...(resources ? { resources } : {}) });

describe('pod QoS class (Kubernetes GetPodQOS)', () => {
  it('reads quantities', () => {
    expect(quantityValue('100m')).toBeCloseTo(0.1);
    expect(quantityValue('1Gi')).toBe(2 ** 30);
    expect(quantityValue('1e3')).toBe(1000);
    expect(quantityValue('2')).toBe(2);
    expect(quantityValue(3)).toBe(3);
    expect(quantityValue('lots')).toBeUndefined();
  });

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
});

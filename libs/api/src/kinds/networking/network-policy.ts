import { Type, type Static } from '@sinclair/typebox';
import { Described, Int32, IntOrString, ListAtomic } from '../../schema/builders';
import { LabelSelectorSchema } from '../../meta/label-selector';
import { objectMetaSchema } from '../../meta/object-meta';
import type { List } from '../../meta/list';

/** The directions a policy may restrict (PolicyType). */
export const PolicyTypes = ['Ingress', 'Egress'] as const;
export type PolicyType = (typeof PolicyTypes)[number];

export const IPBlockSchema = Described(
  Type.Object({ cidr: Type.String(), except: Type.Optional(ListAtomic(Type.String())) }),
  {
    cidr: 'A range of addresses, such as 192.168.1.0/24 or 2001:db8::/64.',
    except: 'Ranges within cidr that are left out.',
  },
  'A range of IP addresses, less some ranges within it.',
);

export const NetworkPolicyPeerSchema = Described(
  Type.Object({
    podSelector: Type.Optional(LabelSelectorSchema),
    namespaceSelector: Type.Optional(LabelSelectorSchema),
    ipBlock: Type.Optional(IPBlockSchema),
  }),
  {
    podSelector: "Pods by their labels: of the policy's namespace, or with namespaceSelector of the namespaces it selects.",
    namespaceSelector: 'Namespaces by their labels, all of whose pods (or those podSelector selects) are peers.',
    ipBlock: 'Addresses, not with the other two. Meant for addresses outside the cluster: pod addresses are best selected by labels.',
  },
  'What traffic may come from or go to: pods, namespaces or a range of addresses.',
);

export const NetworkPolicyPortSchema = Described(
  Type.Object({
    protocol: Type.Optional(Type.String({ default: 'TCP' })),
    port: Type.Optional(IntOrString()),
    endPort: Type.Optional(Int32()),
  }),
  {
    protocol: 'TCP (the default), UDP or SCTP.',
    port: 'A port by number, or by the name of a container port of the selected pods; every port when left out.',
    endPort: 'With a numeric port, the last of a range of ports from port.',
  },
  'A port, or a range of ports, of a protocol.',
);

export const NetworkPolicyIngressRuleSchema = Described(
  Type.Object({
    ports: Type.Optional(ListAtomic(NetworkPolicyPortSchema)),
    from: Type.Optional(ListAtomic(NetworkPolicyPeerSchema)),
  }),
  {
    ports: 'The ports of the selected pods traffic may reach; every port when empty.',
    from: 'Where traffic may come from; anywhere when empty.',
  },
  'Traffic allowed into the selected pods.',
);

export const NetworkPolicyEgressRuleSchema = Described(
  Type.Object({
    ports: Type.Optional(ListAtomic(NetworkPolicyPortSchema)),
    to: Type.Optional(ListAtomic(NetworkPolicyPeerSchema)),
  }),
  {
    ports: 'The ports traffic may go to; every port when empty.',
    to: 'Where traffic may go; anywhere when empty.',
  },
  'Traffic allowed out of the selected pods.',
);

export const NetworkPolicySpecSchema = Described(
  Type.Object({
    podSelector: Type.Optional(LabelSelectorSchema),
    ingress: Type.Optional(ListAtomic(NetworkPolicyIngressRuleSchema)),
    egress: Type.Optional(ListAtomic(NetworkPolicyEgressRuleSchema)),
    policyTypes: Type.Optional(ListAtomic(Type.String())),
  }),
  {
    podSelector: "The pods of the policy's namespace it applies to; every pod when empty.",
    ingress: 'Traffic allowed into the selected pods; none (all denied) when the policy restricts Ingress and this is empty.',
    egress: 'Traffic allowed out of the selected pods; none (all denied) when the policy restricts Egress and this is empty.',
    policyTypes: 'The directions the policy restricts: Ingress, Egress or both. When left out, Ingress, and Egress too if the policy has egress rules.',
  },
  'Which pods a policy selects, and the traffic it allows them.',
);

export const NetworkPolicySchema = Described(
  Type.Object({
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
    spec: Type.Optional(NetworkPolicySpecSchema),
  }),
  {
    apiVersion: 'networking.k8s.io/v1.',
    kind: 'NetworkPolicy.',
    metadata: "The policy's name and namespace.",
    spec: 'The pods it selects and the traffic allowed them.',
  },
  'The traffic allowed to and from a set of pods: once a policy selects a pod, only what some policy allows reaches it (or leaves it).',
);
export type NetworkPolicy = Static<typeof NetworkPolicySchema>;
export type NetworkPolicyList = List<NetworkPolicy>;
export type NetworkPolicyPeer = Static<typeof NetworkPolicyPeerSchema>;
export type NetworkPolicyPort = Static<typeof NetworkPolicyPortSchema>;

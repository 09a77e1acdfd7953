/**
 * Where the API server publishes how it authenticates clients, for the components that delegate
 * authentication to it (Kubernetes: `kube-system/extension-apiserver-authentication`).
 */
export const AUTHENTICATION_INFO_NAMESPACE = 'svc-system';
export const AUTHENTICATION_INFO_CONFIGMAP = 'extension-apiserver-authentication';

/** The ConfigMap's keys, Kubernetes' names: PEM bundles, and JSON lists of strings for the header settings. */
export const AUTHENTICATION_INFO_KEYS = {
  clientCa: 'client-ca-file',
  requestHeaderClientCa: 'requestheader-client-ca-file',
  requestHeaderAllowedNames: 'requestheader-allowed-names',
  requestHeaderUsernameHeaders: 'requestheader-username-headers',
  requestHeaderGroupHeaders: 'requestheader-group-headers',
  requestHeaderExtraHeadersPrefix: 'requestheader-extra-headers-prefix',
} as const;

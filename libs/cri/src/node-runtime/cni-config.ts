/** Where Debian's containernetworking-plugins puts the CNI plugins (containerd's own default is /opt/cni/bin). */
export const CNI_BIN_DIR = '/usr/lib/cni';

/** The name of the pods' network in the CNI configuration. */
export const POD_NETWORK_NAME = 'svc-pods';

/**
 * The CNI configuration of a node's pods, as a template of containerd's CRI plugin (`conf_template`):
 * containerd writes it to its `conf_dir`, with `{{.PodCIDR}}` filled in, when the node agent hands it
 * the Node's pod CIDR (UpdateRuntimeConfig), so the node turns Ready only once node IPAM gave it one.
 * A bridge whose address is the pods' gateway (so the host reaches every pod IP, and pods reach the
 * host's addresses, the API server's among them), addresses from host-local on the pod CIDR, and
 * hostPort mappings (portmap). The loopback plugin is not listed: containerd brings up each pod's `lo`
 * with it on its own. Nothing is masqueraded: routes between nodes carry pod IPs as they are.
 */
export function cniTemplate(bridge: string, ipamDataDir: string): string {
  return JSON.stringify(
    {
      cniVersion: '0.4.0',
      name: POD_NETWORK_NAME,
      plugins: [
        {
          type: 'bridge',
          bridge,
          isGateway: true,
          ipMasq: false,
          hairpinMode: true,
          ipam: { type: 'host-local', dataDir: ipamDataDir, ranges: [[{ subnet: '{{.PodCIDR}}' }]], routes: [{ dst: '0.0.0.0/0' }] },
        },
        { type: 'portmap', capabilities: { portMappings: true } },
      ],
    },
    null,
    2,
  );
}

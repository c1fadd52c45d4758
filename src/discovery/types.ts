/**
 * The discovery documents' types (metav1 APIVersions, APIGroupList, APIGroup,
 * GroupVersionForDiscovery, ServerAddressByClientCIDR in
 * staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go, and version.Info in
 * staging/src/k8s.io/apimachinery/pkg/version/types.go). Written here rather than generated: the
 * OpenAPI documents of group-versions the generator reads do not describe /api, /apis and /version.
 * The resource lists (APIResourceList, APIResource) are generated, in kubeloom/api/meta/v1.
 */

/** Where clients whose IP matches `clientCIDR` should reach the server. */
export interface ServerAddressByClientCIDR {
  clientCIDR: string;
  /** A hostname, hostname:port, IP or IP:port. */
  serverAddress: string;
}

/** The versions of the core API (GET /api). */
export interface APIVersions {
  apiVersion?: 'v1';
  kind?: 'APIVersions';
  serverAddressByClientCIDRs: ServerAddressByClientCIDR[];
  versions: string[];
}

/** One version of an API group: `groupVersion` is `group/version`. */
export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

/** An API group with its versions and the version the server prefers. */
export interface APIGroup {
  apiVersion?: 'v1';
  kind?: 'APIGroup';
  name: string;
  preferredVersion?: GroupVersionForDiscovery;
  serverAddressByClientCIDRs?: ServerAddressByClientCIDR[];
  versions: GroupVersionForDiscovery[];
}

/** The API groups a server offers (GET /apis). */
export interface APIGroupList {
  apiVersion?: 'v1';
  kind?: 'APIGroupList';
  groups: APIGroup[];
}

/** The server's version (GET /version). The emulation and compatibility fields are Kubernetes 1.33+. */
export interface VersionInfo {
  major: string;
  minor: string;
  emulationMajor?: string;
  emulationMinor?: string;
  minCompatibilityMajor?: string;
  minCompatibilityMinor?: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

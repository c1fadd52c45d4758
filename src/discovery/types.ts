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
  /** The client network this address serves (CIDR). */
  clientCIDR: string;
  /** A hostname, hostname:port, IP or IP:port. */
  serverAddress: string;
}

/** The versions of the core API (GET /api). */
export interface APIVersions {
  /** `v1`. */
  apiVersion?: 'v1';
  /** `APIVersions`. */
  kind?: 'APIVersions';
  /** Server addresses by client network. */
  serverAddressByClientCIDRs: ServerAddressByClientCIDR[];
  /** The versions of the core group, e.g. `v1`. */
  versions: string[];
}

/** One version of an API group: `groupVersion` is `group/version`. */
export interface GroupVersionForDiscovery {
  /** `group/version`, e.g. `apps/v1`. */
  groupVersion: string;
  /** The version, e.g. `v1`. */
  version: string;
}

/** An API group with its versions and the version the server prefers. */
export interface APIGroup {
  /** `v1`. */
  apiVersion?: 'v1';
  /** `APIGroup`. */
  kind?: 'APIGroup';
  /** The group's name ('' for the core group). */
  name: string;
  /** The version clients should use. */
  preferredVersion?: GroupVersionForDiscovery;
  /** Server addresses by client network. */
  serverAddressByClientCIDRs?: ServerAddressByClientCIDR[];
  /** Every version served. */
  versions: GroupVersionForDiscovery[];
}

/** The API groups a server offers (GET /apis). */
export interface APIGroupList {
  /** `v1`. */
  apiVersion?: 'v1';
  /** `APIGroupList`. */
  kind?: 'APIGroupList';
  /** Every group served. */
  groups: APIGroup[];
}

/** The server's version (GET /version). The emulation and compatibility fields are Kubernetes 1.33+. */
export interface VersionInfo {
  /** Major version, e.g. `1`. */
  major: string;
  /** Minor version, e.g. `34`. */
  minor: string;
  /** Major version the server emulates. */
  emulationMajor?: string;
  /** Minor version the server emulates. */
  emulationMinor?: string;
  /** Oldest major version the server is compatible with. */
  minCompatibilityMajor?: string;
  /** Oldest minor version the server is compatible with. */
  minCompatibilityMinor?: string;
  /** Full version, e.g. `v1.34.1`. */
  gitVersion: string;
  /** The git commit built. */
  gitCommit: string;
  /** `clean` or `dirty`. */
  gitTreeState: string;
  /** Build time (RFC 3339). */
  buildDate: string;
  /** Go version of the build. */
  goVersion: string;
  /** Go compiler. */
  compiler: string;
  /** `os/arch`, e.g. `linux/amd64`. */
  platform: string;
}

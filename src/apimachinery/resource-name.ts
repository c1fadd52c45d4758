/**
 * Kinds of compute resource names, as pkg/apis/core/v1/helper (helpers.go, v1.24) tells them apart:
 * native names (no domain, or a kubernetes.io domain), hugepages (`hugepages-<size>`) and extended
 * resources (any other domain-qualified name, e.g. `example.com/dongle`), which quotas limit only as
 * `requests.<name>` because they cannot be overcommitted.
 */

/** core/v1 ResourceHugePagesPrefix. */
export const hugePagesPrefix = 'hugepages-';
/** core/v1 DefaultResourceRequestsPrefix: the quota name of a requested amount. */
export const resourceRequestsPrefix = 'requests.';

const namePart = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

// validation.IsQualifiedName: an optional DNS-subdomain prefix and '/', then a name of at most 63
// characters, alphanumeric at both ends.
function isQualifiedName(v: string): boolean {
  const parts = v.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1]!;
  if (parts.length === 2 && (parts[0]!.length === 0 || parts[0]!.length > 253 || !dnsSubdomain.test(parts[0]!))) return false;
  return name.length > 0 && name.length <= 63 && namePart.test(name);
}

/** IsNativeResource: no domain, or a domain in kubernetes.io. */
export function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

/**
 * IsExtendedResourceName: not native, not a `requests.` name itself, and `requests.<name>` is a
 * qualified name.
 */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith(resourceRequestsPrefix)) return false;
  return isQualifiedName(`${resourceRequestsPrefix}${name}`);
}

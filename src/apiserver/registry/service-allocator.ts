/**
 * Cluster IPs and node ports of Services, as the service registry's allocators hand them out
 * (`pkg/registry/core/service/ipallocator` and `portallocator`), sequentially here.
 */
import { isObject } from '../object-meta.ts';
import { invalid } from '../status.ts';

type Obj = Record<string, unknown>;

/** Hands out service cluster IPs and node ports. */
export class ServiceAllocator {
  // Within serviceClusterIPRange; 10.96.0.1 belongs to the `kubernetes` service.
  #nextIp = 10;
  // The default node port range is 30000-32767.
  #nextNodePort = 30000;

  /** The next free cluster IP. */
  clusterIP(): string {
    const n = this.#nextIp++;
    return `10.${96 + Math.floor(n / 65536)}.${Math.floor(n / 256) % 256}.${n % 256}`;
  }

  /**
   * Moves past the cluster IP and node ports a stored Service already holds, so a server started on
   * existing data (a data directory, a snapshot) does not hand them out again.
   */
  observe(spec: Obj): void {
    const ips: unknown[] = [spec.clusterIP, ...(Array.isArray(spec.clusterIPs) ? (spec.clusterIPs as unknown[]) : [])];
    for (const ip of ips) {
      const m = typeof ip === 'string' ? /^10\.(\d+)\.(\d+)\.(\d+)$/.exec(ip) : null;
      if (m === null) continue;
      const n = (Number(m[1]) - 96) * 65536 + Number(m[2]) * 256 + Number(m[3]);
      if (n >= this.#nextIp && Number(m[1]) >= 96 && Number(m[1]) < 112) this.#nextIp = n + 1;
    }
    for (const p of Array.isArray(spec.ports) ? spec.ports : []) {
      const port = isObject(p) ? p.nodePort : undefined;
      if (typeof port === 'number' && port >= this.#nextNodePort && port < 32767) this.#nextNodePort = port + 1;
    }
  }

  /** The next free node port (wraps within the range). */
  nodePort(): number {
    const p = this.#nextNodePort;
    this.#nextNodePort = p === 32767 ? 30000 : p + 1;
    return p;
  }
}

/** The service CIDR the embedded server allocates from (kubeadm's default; kube-apiserver's own default is 10.0.0.0/24). */
export const serviceClusterIPRange = '10.96.0.0/12';

function ipv4(text: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (m === null) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!;
}

/**
 * Refuses requested cluster IPs outside the service CIDR, as the allocator does when a Service is created
 * (pkg/registry/core/service/storage/alloc.go allocClusterIPs; ipallocator's ErrNotInRange): 422 on
 * `spec.clusterIPs`, the value printed as Go's `%#v` of the list. What does not parse as an IP is left to
 * validation, as upstream; IPv6 addresses are not checked (the embedded server allocates IPv4 only).
 */
export function checkRequestedClusterIPs(spec: Obj, name: string): void {
  const ips = Array.isArray(spec.clusterIPs) && spec.clusterIPs.length > 0 ? spec.clusterIPs : typeof spec.clusterIP === 'string' && spec.clusterIP !== '' ? [spec.clusterIP] : [];
  const [base, bits] = serviceClusterIPRange.split('/') as [string, string];
  const mask = (~0 << (32 - Number(bits))) >>> 0;
  for (const ip of ips) {
    if (typeof ip !== 'string' || ip === 'None') continue;
    const n = ipv4(ip);
    if (n === undefined || ((n & mask) >>> 0) === ipv4(base)) continue;
    const value = `[]string{${ips.map((i) => JSON.stringify(i)).join(', ')}}`;
    const detail = `failed to allocate IP ${ip}: the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${serviceClusterIPRange}`;
    throw invalid('', 'Service', name, [{ reason: 'FieldValueInvalid', field: 'spec.clusterIPs', message: `Invalid value: ${value}: ${detail}` }]);
  }
}

/**
 * Allocates what a Service's spec leaves to the registry: cluster IP(s), IP families and policy, node
 * ports; an update that leaves them out keeps the allocated ones (the registry's patchAllocatedValues).
 */
export function allocateService(spec: Obj, alloc: ServiceAllocator, old: Obj | undefined): void {
  const type = spec.type;
  if (type !== 'ExternalName') {
    if ((spec.clusterIP === undefined || spec.clusterIP === '') && old !== undefined && typeof old.clusterIP === 'string' && old.clusterIP !== '') {
      spec.clusterIP = old.clusterIP;
      if (spec.clusterIPs === undefined && old.clusterIPs !== undefined) spec.clusterIPs = structuredClone(old.clusterIPs);
    }
    if (spec.clusterIP === undefined || spec.clusterIP === '') spec.clusterIP = alloc.clusterIP();
    spec.clusterIPs ??= [spec.clusterIP];
    if (old !== undefined && spec.ipFamilies === undefined && old.ipFamilies !== undefined) spec.ipFamilies = structuredClone(old.ipFamilies);
    if (old !== undefined && spec.ipFamilyPolicy === undefined && old.ipFamilyPolicy !== undefined) spec.ipFamilyPolicy = old.ipFamilyPolicy;
    spec.ipFamilies ??= ['IPv4'];
    spec.ipFamilyPolicy ??= 'SingleStack';
  }
  if (type === 'NodePort' || type === 'LoadBalancer') {
    const oldPorts = old !== undefined && Array.isArray(old.ports) ? old.ports.filter(isObject) : [];
    for (const p of Array.isArray(spec.ports) ? spec.ports.filter(isObject) : []) {
      if (p.nodePort !== undefined && p.nodePort !== 0) continue;
      const prev = oldPorts.find((q) => q.port === p.port && (q.protocol ?? 'TCP') === p.protocol);
      p.nodePort = typeof prev?.nodePort === 'number' ? prev.nodePort : alloc.nodePort();
    }
  }
}

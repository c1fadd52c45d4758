/**
 * Cluster IPs and node ports of Services, as the service registry's allocators hand them out
 * (`pkg/registry/core/service/ipallocator` and `portallocator`), sequentially here.
 */
import { isObject } from '../object-meta.ts';

type Obj = Record<string, unknown>;

/** Hands out service cluster IPs and node ports. */
export class ServiceAllocator {
  // kube-apiserver's default service CIDR is 10.96.0.0/12; 10.96.0.1 belongs to the `kubernetes` service.
  #nextIp = 10;
  // The default node port range is 30000-32767.
  #nextNodePort = 30000;

  /** The next free cluster IP. */
  clusterIP(): string {
    const n = this.#nextIp++;
    return `10.${96 + Math.floor(n / 65536)}.${Math.floor(n / 256) % 256}.${n % 256}`;
  }

  /** The next free node port (wraps within the range). */
  nodePort(): number {
    const p = this.#nextNodePort;
    this.#nextNodePort = p === 32767 ? 30000 : p + 1;
    return p;
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

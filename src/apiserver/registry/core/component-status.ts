/**
 * ComponentStatuses (`pkg/registry/core/componentstatus/rest.go`): computed on every GET and LIST, never
 * stored. kube-apiserver probes the scheduler's and controller-manager's /healthz on localhost and its
 * etcd servers; the embedded server's storage lives in its own process and it probes nothing, so it
 * reports its storage as a healthy `etcd-0` and the two components as healthy (their stand-ins run in
 * process, or an external one is in charge). Reads carry the deprecation warning upstream adds (v1.19+).
 */

type Obj = Record<string, unknown>;

/** The Warning header value of every componentstatuses read. */
export const componentStatusWarning = '299 - "v1 ComponentStatus is deprecated in v1.19+"';

/** The ComponentStatuses, in upstream's order (scheduler, controller-manager, then the etcd servers). */
export function componentStatuses(): Obj[] {
  const status = (name: string, message: string): Obj => ({
    kind: 'ComponentStatus',
    apiVersion: 'v1',
    metadata: { name, creationTimestamp: null },
    conditions: [{ type: 'Healthy', status: 'True', message }],
  });
  return [status('scheduler', 'ok'), status('controller-manager', 'ok'), status('etcd-0', '{"health":"true"}')];
}

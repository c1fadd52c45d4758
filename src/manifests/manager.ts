/**
 * The manager's Namespace, Deployment and Services (kubebuilder's config/manager/manager.yaml,
 * config/default/metrics_service.yaml, config/webhook/service.yaml and the manager_webhook_patch.yaml
 * that mounts the serving certificate, folded into the Deployment when the project has webhooks).
 *
 * The container runs `node src/main.ts` (the image's entry point) with kubebuilder's flags; probes
 * on :8081 (`/healthz`, `/readyz`), metrics on :8080, webhooks on :9443 with the certificate from
 * the `webhook-server-cert` Secret at the webhook server's default certDir. Security context as
 * kubebuilder's (non-root, no privilege escalation, every capability dropped, RuntimeDefault
 * seccomp) plus a read-only root filesystem. Resources are kubebuilder's CPU figures with memory
 * raised for a Node.js process (kubebuilder: 64Mi requested, 128Mi limit, sized for Go).
 */
import type { Deployment } from '../api/apps/v1.ts';
import type { Namespace, Service } from '../api/core/v1.ts';
import { webhookServiceName } from './crd.ts';
import { rbacNames } from './rbac.ts';

/** The Deployment's name before kustomize's namePrefix. */
export const deploymentName = 'controller-manager';
/** The Secret with the webhook serving certificate (cert-manager writes it; kubebuilder's name). */
export const webhookCertSecret = 'webhook-server-cert';
/** Where the webhook server reads its certificate: defaultCertDir() in a container whose tmpdir is /tmp. */
export const webhookCertDir = '/tmp/k8s-webhook-server/serving-certs';
// controller-runtime's defaults: webhook.DefaultPort, kubebuilder's probe and metrics addresses.
// Metrics: kubebuilder's :8080 over plain HTTP, :8443 when served securely (its manager_metrics_patch.yaml).
const ports = { webhook: 9443, probes: 8081, metrics: 8080, secureMetrics: 8443 } as const;

const metricsPort = (secure: boolean | undefined): number => (secure === true ? ports.secureMetrics : ports.metrics);

/** The labels every object of the project carries, and the selector of the manager's pods. */
export function projectLabels(projectName: string): { labels: Record<string, string>; selector: Record<string, string> } {
  const selector = { 'app.kubernetes.io/name': projectName, 'control-plane': 'controller-manager' };
  return { labels: { 'app.kubernetes.io/managed-by': 'kustomize', 'app.kubernetes.io/name': projectName }, selector };
}

/** The manager's namespace (`system` before kustomize's `namespace:`). */
export function namespace(projectName: string): Namespace {
  const { labels, selector } = projectLabels(projectName);
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { labels: { ...labels, ...selector }, name: rbacNames.namespace } };
}

/**
 * The manager's Deployment; `webhooks` mounts the serving certificate and opens the webhook port;
 * `secureMetrics` binds metrics to :8443 (HTTPS, the scaffold's main.ts default) instead of :8080.
 */
export function managerDeployment(projectName: string, options: { webhooks: boolean; image?: string; secureMetrics?: boolean }): Deployment {
  const { labels, selector } = projectLabels(projectName);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { labels: { ...labels, ...selector }, name: deploymentName, namespace: rbacNames.namespace },
    spec: {
      replicas: 1,
      selector: { matchLabels: selector },
      template: {
        metadata: { annotations: { 'kubectl.kubernetes.io/default-container': 'manager' }, labels: selector },
        spec: {
          containers: [
            {
              args: ['--leader-elect', `--health-probe-bind-address=:${ports.probes}`, `--metrics-bind-address=:${metricsPort(options.secureMetrics)}`],
              env: [{ name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
              image: options.image ?? 'controller:latest',
              livenessProbe: { httpGet: { path: '/healthz', port: ports.probes }, initialDelaySeconds: 15, periodSeconds: 20 },
              name: 'manager',
              ports: [
                { containerPort: metricsPort(options.secureMetrics), name: 'metrics', protocol: 'TCP' },
                { containerPort: ports.probes, name: 'probes', protocol: 'TCP' },
                ...(options.webhooks ? [{ containerPort: ports.webhook, name: 'webhook-server', protocol: 'TCP' }] : []),
              ],
              readinessProbe: { httpGet: { path: '/readyz', port: ports.probes }, initialDelaySeconds: 5, periodSeconds: 10 },
              resources: { limits: { cpu: '500m', memory: '512Mi' }, requests: { cpu: '10m', memory: '128Mi' } },
              securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, readOnlyRootFilesystem: true },
              ...(options.webhooks ? { volumeMounts: [{ mountPath: webhookCertDir, name: 'cert', readOnly: true }] } : {}),
            },
          ],
          securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
          serviceAccountName: rbacNames.serviceAccount,
          terminationGracePeriodSeconds: 10,
          ...(options.webhooks ? { volumes: [{ name: 'cert', secret: { secretName: webhookCertSecret } }] } : {}),
        },
      },
    },
  };
}

/** The Service the API server calls the webhooks through: 443 → the container's 9443. */
export function webhookService(projectName: string): Service {
  const { labels, selector } = projectLabels(projectName);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { labels, name: webhookServiceName, namespace: rbacNames.namespace },
    spec: { ports: [{ port: 443, protocol: 'TCP', targetPort: ports.webhook }], selector },
  };
}

/** The Service Prometheus scrapes the manager's metrics through: `http` on 8080, or `https` on 8443 with `secureMetrics`. */
export function metricsService(projectName: string, options: { secureMetrics?: boolean } = {}): Service {
  const { labels, selector } = projectLabels(projectName);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { labels: { ...labels, ...selector }, name: 'controller-manager-metrics-service', namespace: rbacNames.namespace },
    spec: { ports: [{ name: options.secureMetrics === true ? 'https' : 'http', port: metricsPort(options.secureMetrics), protocol: 'TCP', targetPort: metricsPort(options.secureMetrics) }], selector },
  };
}

/**
 * Manifests for deploying an operator (controller-gen's job, without markers): the config/ tree of a
 * kubeloom project, from its CRD declarations and what its `setup(mgr)` registers. Used by
 * `kubeloom manifests`; see docs/ship.md.
 */
export { generateConfig, generatedHeader, type ManifestInput } from './config.ts';
export { controllerRules, managerRole, normalizeRules, policyRuleOf, rbacNames } from './rbac.ts';
export { crdFileName, crdManifest, webhookServiceName, type CrdManifestOptions } from './crd.ts';
export { webhookConfigurations, webhookConfigurationNames } from './webhook.ts';
export { managerDeployment, metricsService, projectLabels, webhookService } from './manager.ts';
export { certManagerObjects, injectCaAnnotation, type CertManagerObject } from './certmanager.ts';
export { loadProject, type ProjectConfig, type ProjectSetupModule } from './project.ts';
export { writeConfig, type WriteResult } from './write.ts';
export { ManifestError } from './errors.ts';
export { toYaml } from './yaml.ts';

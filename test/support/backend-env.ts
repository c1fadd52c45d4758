/**
 * The environment variables that select the end-to-end backend (see backend.ts), in a module of their
 * own so the real-lane runner can read them without starting a backend.
 */

/** Selects the backend: `real` runs against the cluster of {@link KubeconfigEnvVar}; anything else is the embedded server. */
export const BackendEnvVar = 'KUBELOOM_TEST_BACKEND';
/** The kubeconfig of the cluster the real backend uses (its current context). */
export const KubeconfigEnvVar = 'KUBELOOM_TEST_KUBECONFIG';
/** How long a test waits for a real cluster's periodic etcd compaction (ms, default 60,000). */
export const CompactionTimeoutEnvVar = 'KUBELOOM_TEST_COMPACTION_TIMEOUT_MS';
/** The label (value `true`) on every end-to-end test namespace, so that leftovers can be found. */
export const e2eNamespaceLabel = 'kubeloom.dev/e2e';

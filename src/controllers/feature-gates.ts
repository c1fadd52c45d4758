/**
 * The kube-controller-manager feature gates the workload controllers look at (kubernetes/pkg/features
 * kube_features.go), with the defaults of the upstream kubeloom's controllers follow. Gates not listed
 * here are on, as in 1.32: DaemonSetUpdateSurge, JobBackoffLimitPerIndex, JobSuccessPolicy, PodIndexLabel.
 */

/** Feature gates of the workload controllers; each field is one gate, undefined meaning its default. */
export interface ControllerFeatureGates {
  /**
   * `rollingUpdate.maxUnavailable` of a StatefulSet: more than one pod updated at a time. Alpha since
   * 1.24 and still off by default (as in kube-controller-manager v1.24): off, a StatefulSet updates one
   * pod at a time whatever maxUnavailable says.
   */
  MaxUnavailableStatefulSet?: boolean;
  /**
   * `persistentVolumeClaimRetentionPolicy` of a StatefulSet: owner references on its claims so that the
   * garbage collector deletes them with the set (whenDeleted) or with a scaled-down pod (whenScaled).
   * Alpha 1.23–1.26 (off in v1.24), beta and on since 1.27, GA in 1.32: default on.
   */
  StatefulSetAutoDeletePVC?: boolean;
}

/** The defaults of {@link ControllerFeatureGates}. */
export const defaultControllerFeatureGates: Readonly<Required<ControllerFeatureGates>> = {
  MaxUnavailableStatefulSet: false,
  StatefulSetAutoDeletePVC: true,
};

/** `gates` with every gate it leaves out at its default. */
export function resolveControllerFeatureGates(gates: ControllerFeatureGates = {}): Required<ControllerFeatureGates> {
  return { ...defaultControllerFeatureGates, ...Object.fromEntries(Object.entries(gates).filter(([, v]) => v !== undefined)) };
}

/** A `--feature-gates` value naming a gate these controllers do not know, or a value other than true/false. */
export class FeatureGateError extends Error {
  /** Stable error code. */
  readonly code = 'ERR_FEATURE_GATE';
  constructor(message: string) {
    super(message);
    this.name = 'FeatureGateError';
  }
}

/**
 * Parses kube-controller-manager's `--feature-gates` text (`A=true,B=false`) into {@link ControllerFeatureGates},
 * with component-base's messages for an unknown gate or a value that is not a boolean.
 */
export function parseControllerFeatureGates(text: string): ControllerFeatureGates {
  const out: Record<string, boolean> = {};
  for (const part of text.split(',')) {
    const item = part.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    const name = (eq < 0 ? item : item.slice(0, eq)).trim();
    const value = eq < 0 ? '' : item.slice(eq + 1).trim();
    if (!(name in defaultControllerFeatureGates)) throw new FeatureGateError(`unrecognized feature gate: ${name}`);
    if (value !== 'true' && value !== 'false') throw new FeatureGateError(`invalid value of ${name}=${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
    out[name] = value === 'true';
  }
  return out as ControllerFeatureGates;
}

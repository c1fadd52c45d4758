/**
 * CSIDrivers: defaulting as v1.32's `pkg/apis/storage/v1/defaults.go` SetDefaults_CSIDriver (the
 * feature gates it once checked are GA; SELinuxMountReadWriteOncePod is beta and on), and the spec
 * fields `pkg/apis/storage/validation/validation.go` ValidateCSIDriverUpdate keeps fixed
 * (`pkg/registry/storage/csidriver/strategy.go`).
 */
import { isObject } from '../../object-meta.ts';
import { invalidValue, path, type FieldError } from '../validation/field.ts';

type Obj = Record<string, unknown>;

/** SetDefaults_CSIDriver. */
export function csiDriverDefaults(driver: Obj): void {
  if (!isObject(driver.spec)) driver.spec = {};
  const spec = driver.spec as Obj;
  spec.attachRequired ??= true;
  spec.podInfoOnMount ??= false;
  spec.storageCapacity ??= false;
  spec.fsGroupPolicy ??= 'ReadWriteOnceWithFSType';
  if (!Array.isArray(spec.volumeLifecycleModes) || spec.volumeLifecycleModes.length === 0) spec.volumeLifecycleModes = ['Persistent'];
  spec.requiresRepublish ??= false;
  spec.seLinuxMount ??= false;
}

/**
 * ValidateCSIDriverUpdate: attachRequired and volumeLifecycleModes are immutable (the other spec fields
 * became mutable in v1.29). Upstream reports attachRequired at `spec.attachedRequired`, and so does this.
 */
export function validateCsiDriverUpdate(driver: Obj, old: Obj): FieldError[] {
  const out: FieldError[] = [];
  const spec = isObject(driver.spec) ? driver.spec : {};
  const oldSpec = isObject(old.spec) ? old.spec : {};
  if (JSON.stringify(spec.attachRequired) !== JSON.stringify(oldSpec.attachRequired)) out.push(invalidValue(path('spec', 'attachedRequired'), spec.attachRequired, 'field is immutable'));
  if (JSON.stringify(spec.volumeLifecycleModes) !== JSON.stringify(oldSpec.volumeLifecycleModes)) out.push(invalidValue(path('spec', 'volumeLifecycleModes'), spec.volumeLifecycleModes, 'field is immutable'));
  return out;
}

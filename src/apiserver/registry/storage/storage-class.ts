/**
 * StorageClasses: defaulting (`pkg/apis/storage/v1/defaults.go` SetDefaults_StorageClass), validation and
 * the fields an update may not change (`pkg/apis/storage/validation/validation.go` ValidateStorageClass,
 * ValidateStorageClassUpdate), as `pkg/registry/storage/storageclass/strategy.go` applies them.
 */
import { isObject, str } from '../../object-meta.ts';
import { forbiddenField, invalidValue, notSupported, path, required, type FieldError } from '../validation/field.ts';
import { isQualifiedName } from '../validation/names.ts';

type Obj = Record<string, unknown>;

/** SetDefaults_StorageClass: reclaimPolicy Delete, volumeBindingMode Immediate. */
export function storageClassDefaults(sc: Obj): void {
  sc.reclaimPolicy ??= 'Delete';
  sc.volumeBindingMode ??= 'Immediate';
}

const reclaimPolicies = ['Delete', 'Retain'];
const bindingModes = ['Immediate', 'WaitForFirstConsumer'];

/** ValidateStorageClass (beyond metadata): provisioner, reclaim policy and binding mode. */
export function validateStorageClass(sc: Obj): FieldError[] {
  const out: FieldError[] = [];
  const provisioner = str(sc.provisioner);
  if (provisioner === '') out.push(required(path('provisioner')));
  else for (const msg of isQualifiedName(provisioner.toLowerCase())) out.push(invalidValue(path('provisioner'), provisioner, msg));
  if (typeof sc.reclaimPolicy === 'string' && !reclaimPolicies.includes(sc.reclaimPolicy)) out.push(notSupported(path('reclaimPolicy'), sc.reclaimPolicy, reclaimPolicies));
  if (sc.volumeBindingMode === undefined || sc.volumeBindingMode === null) out.push(required(path('volumeBindingMode')));
  else if (!bindingModes.includes(str(sc.volumeBindingMode))) out.push(notSupported(path('volumeBindingMode'), sc.volumeBindingMode, bindingModes));
  return out;
}

/** ValidateStorageClassUpdate: parameters, provisioner, reclaimPolicy and volumeBindingMode are fixed at creation. */
export function validateStorageClassUpdate(sc: Obj, old: Obj): FieldError[] {
  const out = validateStorageClass(sc);
  const params = (o: Obj): string => JSON.stringify(isObject(o.parameters) ? Object.entries(o.parameters).sort() : []);
  if (params(sc) !== params(old)) out.push(forbiddenField(path('parameters'), 'updates to parameters are forbidden.'));
  if (str(sc.provisioner) !== str(old.provisioner)) out.push(forbiddenField(path('provisioner'), 'updates to provisioner are forbidden.'));
  if (str(sc.reclaimPolicy) !== str(old.reclaimPolicy)) out.push(forbiddenField(path('reclaimPolicy'), 'updates to reclaimPolicy are forbidden.'));
  if (str(sc.volumeBindingMode) !== str(old.volumeBindingMode)) out.push(invalidValue(path('volumeBindingMode'), sc.volumeBindingMode, 'field is immutable'));
  return out;
}

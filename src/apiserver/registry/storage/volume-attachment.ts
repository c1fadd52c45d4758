/**
 * VolumeAttachments (`pkg/registry/storage/volumeattachment/strategy.go`): a create starts without
 * status, the main resource cannot change it nor the spec (ValidateVolumeAttachmentUpdate in
 * `pkg/apis/storage/validation/validation.go`: "spec: Invalid value: ...: field is immutable"), and
 * ValidateVolumeAttachment's required fields.
 */
import { isObject, str } from '../../object-meta.ts';
import { invalidValue, path, required, type FieldError } from '../validation/field.ts';

type Obj = Record<string, unknown>;

/** ValidateVolumeAttachment (beyond metadata): attacher, nodeName and exactly one source. */
export function validateVolumeAttachment(va: Obj): FieldError[] {
  const out: FieldError[] = [];
  const spec = isObject(va.spec) ? va.spec : {};
  if (str(spec.attacher) === '') out.push(required(path('spec', 'attacher')));
  const source = isObject(spec.source) ? spec.source : {};
  const given = [source.persistentVolumeName, source.inlineVolumeSpec].filter((x) => x !== undefined && x !== null).length;
  if (given !== 1) out.push(invalidValue(path('spec', 'source'), source, 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  if (str(spec.nodeName) === '') out.push(required(path('spec', 'nodeName')));
  return out;
}

/** ValidateVolumeAttachmentUpdate: the spec is immutable. */
export function validateVolumeAttachmentUpdate(va: Obj, old: Obj): FieldError[] {
  const out = validateVolumeAttachment(va);
  if (JSON.stringify(va.spec) !== JSON.stringify(old.spec)) out.push(invalidValue(path('spec'), va.spec, 'field is immutable'));
  return out;
}

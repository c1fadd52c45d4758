/**
 * RuntimeClasses (`pkg/apis/node/validation/validation.go`): the handler is a DNS-1123 label (so required)
 * and may not change (ValidateRuntimeClassUpdate), as `pkg/registry/node/runtimeclass/strategy.go` checks.
 */
import { str } from '../../object-meta.ts';
import { invalidValue, path, type FieldError } from '../validation/field.ts';
import { isDNS1123Label } from '../validation/names.ts';

type Obj = Record<string, unknown>;

/** ValidateRuntimeClass (beyond metadata): NameIsDNSLabel of the handler, so an empty one is Invalid, not Required. */
export function validateRuntimeClass(rc: Obj): FieldError[] {
  const handler = str(rc.handler);
  return isDNS1123Label(handler).map((msg) => invalidValue(path('handler'), handler, msg));
}

/** ValidateRuntimeClassUpdate: the handler is immutable. */
export function validateRuntimeClassUpdate(rc: Obj, old: Obj): FieldError[] {
  const out = validateRuntimeClass(rc);
  if (str(rc.handler) !== str(old.handler)) out.push(invalidValue(path('handler'), rc.handler, 'field is immutable'));
  return out;
}

/**
 * EndpointSlices: port defaults (`pkg/apis/discovery/v1/defaults.go` SetDefaults_EndpointPort: name "",
 * protocol TCP), and the address type that `pkg/apis/discovery/validation/validation.go` requires on
 * create and keeps on update. Generation starts at 1 and follows every change but metadata
 * (`pkg/registry/discovery/endpointslice/strategy.go`), which the registry does for resources that
 * track generation.
 */
import { isObject, str } from '../../object-meta.ts';
import { invalidValue, notSupported, path, required, type FieldError } from '../validation/field.ts';

type Obj = Record<string, unknown>;

/** SetDefaults_EndpointPort for every port. */
export function endpointSliceDefaults(slice: Obj): void {
  if (!Array.isArray(slice.ports)) return;
  for (const p of slice.ports) {
    if (!isObject(p)) continue;
    p.name ??= '';
    p.protocol ??= 'TCP';
  }
}

const addressTypes = ['IPv4', 'IPv6', 'FQDN'];

/** ValidateEndpointSliceCreate: a supported address type. */
export function validateEndpointSlice(slice: Obj): FieldError[] {
  const t = str(slice.addressType);
  if (t === '') return [required(path('addressType'))];
  return addressTypes.includes(t) ? [] : [notSupported(path('addressType'), t, addressTypes)];
}

/** ValidateEndpointSliceUpdate: the address type may not change. */
export function validateEndpointSliceUpdate(slice: Obj, old: Obj): FieldError[] {
  if (str(slice.addressType) !== str(old.addressType)) return [invalidValue(path('addressType'), slice.addressType, 'field is immutable')];
  return [];
}

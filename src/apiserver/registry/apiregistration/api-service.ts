/**
 * APIServices (k8s.io/kube-aggregator `pkg/apis/apiregistration/validation/validation.go`, as
 * `pkg/registry/apiservice/strategy.go` applies it): the name is `<version>.<group>` (a path segment),
 * only v1 may leave the group empty, the priorities are bounded, and a local APIService (no service)
 * carries no CA bundle nor insecureSkipTLSVerify. The embedded server serves no aggregated API: an
 * APIService pointing at a service is stored but never proxied to.
 */
import { isObject, metaOf, str } from '../../object-meta.ts';
import { invalidValue, path, required, type FieldError } from '../validation/field.ts';

type Obj = Record<string, unknown>;

/** ValidateAPIService (beyond the path-segment rule for the name). */
export function validateApiService(svc: Obj): FieldError[] {
  const out: FieldError[] = [];
  const spec = isObject(svc.spec) ? svc.spec : {};
  const requiredName = `${str(spec.version)}.${str(spec.group)}`;
  const name = str(metaOf(svc).name);
  if (name !== '' && name !== requiredName) out.push(invalidValue(path('metadata', 'name'), name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`));
  if (str(spec.group) === '' && spec.version !== 'v1') out.push(required(path('spec', 'group'), 'only v1 may have an empty group and it better be legacy kube'));
  const groupPriority = typeof spec.groupPriorityMinimum === 'number' ? spec.groupPriorityMinimum : 0;
  if (groupPriority <= 0 || groupPriority > 20000) out.push(invalidValue(path('spec', 'groupPriorityMinimum'), groupPriority, 'must be positive and less than 20000'));
  const versionPriority = typeof spec.versionPriority === 'number' ? spec.versionPriority : 0;
  if (versionPriority <= 0 || versionPriority > 1000) out.push(invalidValue(path('spec', 'versionPriority'), versionPriority, 'must be positive and less than 1000'));
  if (!isObject(spec.service)) {
    if (str(spec.caBundle) !== '') out.push(invalidValue(path('spec', 'caBundle'), `${str(spec.caBundle).length} bytes`, 'local APIServices may not have a caBundle'));
    if (spec.insecureSkipTLSVerify === true) out.push(invalidValue(path('spec', 'insecureSkipTLSVerify'), true, 'local APIServices may not have insecureSkipTLSVerify'));
  }
  return out;
}

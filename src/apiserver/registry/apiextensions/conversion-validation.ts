/**
 * Validation of a CRD's `spec.conversion` (apiextensions-apiserver pkg/apis/apiextensions/validation/
 * validation.go, validateCustomResourceConversion and validateConversionReviewVersions, v1.24): the
 * strategy is None or Webhook; Webhook needs a clientConfig with exactly one of a valid https URL or a
 * valid Service, and conversionReviewVersions (no duplicates, DNS-1035 labels, at least one of v1 and
 * v1beta1); None allows neither. The fields are named as the internal type names them, which is what
 * kube-apiserver reports (`spec.conversion.webhookClientConfig`, `spec.conversion.conversionReviewVersions`:
 * checked against v1.24).
 */
import { forbidden, index, invalidRendered, invalidValue, notSupported, required, type FieldError } from '../field-errors.ts';
import { validateService, validateUrl } from '../admissionregistration/webhook-configuration.ts';
import { isDNS1035Label } from '../validation/names.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

// acceptedConversionReviewVersions, sorted as sets.String.List() prints them.
const acceptedReviewVersions = ['v1', 'v1beta1'];

function validateReviewVersions(versions: unknown[], path: string): FieldError[] {
  if (versions.length === 0) return [required(path, '')];
  const errs: FieldError[] = [];
  const seen = new Set<unknown>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalidValue(index(path, i), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    const s = typeof v === 'string' ? v : '';
    for (const m of isDNS1035Label(s)) errs.push(invalidValue(index(path, i), v, m));
    if (acceptedReviewVersions.includes(s)) accepted = true;
  });
  if (!accepted) errs.push(invalidRendered(path, `[]string{${versions.map((v) => JSON.stringify(typeof v === 'string' ? v : '')).join(', ')}}`, `must include at least one of ${acceptedReviewVersions.join(', ')}`));
  return errs;
}

/** The errors of `spec.conversion` of a v1 CRD (defaulted: an absent conversion is strategy None). */
export function validateCustomResourceConversion(conversion: unknown): FieldError[] {
  if (!isObj(conversion)) return [];
  const path = 'spec.conversion';
  const errs: FieldError[] = [];
  const strategy = conversion.strategy;
  if (strategy !== 'None' && strategy !== 'Webhook') errs.push(notSupported(`${path}.strategy`, strategy ?? '', ['None', 'Webhook']));
  const webhook = isObj(conversion.webhook) ? conversion.webhook : undefined;
  const clientConfig = webhook !== undefined && isObj(webhook.clientConfig) ? webhook.clientConfig : undefined;
  const versions = webhook !== undefined && Array.isArray(webhook.conversionReviewVersions) ? (webhook.conversionReviewVersions as unknown[]) : [];
  const cp = `${path}.webhookClientConfig`;
  if (strategy === 'Webhook') {
    if (clientConfig === undefined) errs.push(required(cp, 'required when strategy is set to Webhook'));
    else {
      const hasUrl = typeof clientConfig.url === 'string';
      if (hasUrl === isObj(clientConfig.service)) errs.push(required(cp, 'exactly one of url or service is required'));
      else if (hasUrl) errs.push(...validateUrl(`${cp}.url`, clientConfig.url as string));
      else errs.push(...validateService(`${cp}.service`, clientConfig.service as Obj));
    }
    errs.push(...validateReviewVersions(versions, `${path}.conversionReviewVersions`));
  } else {
    if (clientConfig !== undefined) errs.push(forbidden(cp, 'should not be set when strategy is not set to Webhook'));
    if (versions.length > 0) errs.push(forbidden(`${path}.conversionReviewVersions`, 'should not be set when strategy is not set to Webhook'));
  }
  return errs;
}

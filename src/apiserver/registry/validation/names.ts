/**
 * The name and value checks of apimachinery's `pkg/util/validation` as the registries' strategies use them.
 * The DNS-1123, qualified-name, label-value and path-segment checks and the metadata name validators are
 * those of ../name-validation.ts (one implementation, re-exported under the strategies' names); this
 * module adds IsDNS1035Label and IsConfigMapKey. Each check returns the messages kube-apiserver puts after
 * "Invalid value: …: ".
 */
import { isDns1123Label, isDns1123Subdomain, isQualifiedName, isValidLabelValue, isValidPathSegmentName, maskTrailingDash, nameIsDnsLabel, nameIsDnsSubdomain, pathSegmentName, type NameValidator } from '../name-validation.ts';

export { isQualifiedName, isValidLabelValue, isValidPathSegmentName, type NameValidator };
/** IsDNS1123Label. */
export const isDNS1123Label = isDns1123Label;
/** IsDNS1123Subdomain. */
export const isDNS1123Subdomain = isDns1123Subdomain;

const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const configMapKeyFmt = '[-._a-zA-Z0-9]+';
const dns1035Label = new RegExp(`^${dns1035LabelFmt}$`);
const configMapKey = new RegExp(`^${configMapKeyFmt}$`);

/** validation.RegexError: the message with examples and the regex. */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  let s = msg;
  if (examples.length > 0) s += ` (e.g. ${examples.map((e) => `'${e}'`).join(',  or ')}, `;
  else s += ' (';
  return `${s}regex used for validation is '${fmt}')`;
}

/** validation.MaxLenError. */
function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

/** IsDNS1035Label. */
export function isDNS1035Label(v: string): string[] {
  const out: string[] = [];
  if (v.length > 63) out.push(maxLenError(63));
  if (!dns1035Label.test(v)) out.push(regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", dns1035LabelFmt, 'my-name', 'abc-123'));
  return out;
}

/** IsConfigMapKey. */
export function isConfigMapKey(v: string): string[] {
  const out: string[] = [];
  if (v.length > 253) out.push(maxLenError(253));
  if (!configMapKey.test(v)) out.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", configMapKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  if (v === '.') out.push("must not be '.'");
  else if (v === '..') out.push("must not be '..'");
  else if (v.startsWith('..')) out.push("must not start with '..'");
  return out;
}

/** Makes a name validator whose prefix form tolerates a trailing '-' (maskTrailingDash). */
export function nameValidator(check: (v: string) => string[]): NameValidator {
  return (name, prefix) => check(prefix ? maskTrailingDash(name) : name);
}

/** NameIsDNSSubdomain: most resources. */
export const nameIsDNSSubdomain: NameValidator = nameIsDnsSubdomain;
/** NameIsDNSLabel: namespaces. */
export const nameIsDNSLabel: NameValidator = nameIsDnsLabel;
/** NameIsDNS1035Label: services. */
export const nameIsDNS1035Label = nameValidator(isDNS1035Label);
/** ValidatePathSegmentName: RBAC objects (a generateName prefix only may not contain '/' or '%'). */
export const namePathSegment: NameValidator = pathSegmentName;

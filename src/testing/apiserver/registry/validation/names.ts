/**
 * The name and value checks of apimachinery's `pkg/util/validation` (IsDNS1123Subdomain,
 * IsDNS1123Label, IsDNS1035Label, IsQualifiedName, IsValidLabelValue, IsConfigMapKey, path segment
 * names), each returning the messages kube-apiserver puts after "Invalid value: …: ".
 */

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const qualifiedNameCharFmt = '[A-Za-z0-9]';
const qualifiedNameExtCharFmt = '[-A-Za-z0-9_.]';
const qualifiedNameFmt = `(${qualifiedNameCharFmt}${qualifiedNameExtCharFmt}*)?${qualifiedNameCharFmt}`;
const labelValueFmt = `(${qualifiedNameFmt})?`;
const configMapKeyFmt = '[-._a-zA-Z0-9]+';

const full = (fmt: string): RegExp => new RegExp(`^${fmt}$`);
const dns1123Label = full(dns1123LabelFmt);
const dns1123Subdomain = full(dns1123SubdomainFmt);
const dns1035Label = full(dns1035LabelFmt);
const qualifiedName = full(qualifiedNameFmt);
const labelValue = full(labelValueFmt);
const configMapKey = full(configMapKeyFmt);

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

/** IsDNS1123Label. */
export function isDNS1123Label(v: string): string[] {
  const out: string[] = [];
  if (v.length > 63) out.push(maxLenError(63));
  if (!dns1123Label.test(v)) out.push(regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", dns1123LabelFmt, 'my-name', '123-abc'));
  return out;
}

/** IsDNS1123Subdomain. */
export function isDNS1123Subdomain(v: string): string[] {
  const out: string[] = [];
  if (v.length > 253) out.push(maxLenError(253));
  if (!dns1123Subdomain.test(v)) out.push(regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", dns1123SubdomainFmt, 'example.com'));
  return out;
}

/** IsDNS1035Label. */
export function isDNS1035Label(v: string): string[] {
  const out: string[] = [];
  if (v.length > 63) out.push(maxLenError(63));
  if (!dns1035Label.test(v)) out.push(regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", dns1035LabelFmt, 'my-name', 'abc-123'));
  return out;
}

/** IsQualifiedName: `[prefix/]name` with a DNS subdomain prefix. */
export function isQualifiedName(v: string): string[] {
  const out: string[] = [];
  const parts = v.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) out.push('prefix part must be non-empty');
    else for (const m of isDNS1123Subdomain(prefix)) out.push(`prefix part ${m}`);
  } else {
    return [
      `${regexError("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", qualifiedNameFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) out.push('name part must be non-empty');
  else if (name.length > 63) out.push(`name part ${maxLenError(63)}`);
  if (!qualifiedName.test(name)) out.push(`name part ${regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  return out;
}

/** IsValidLabelValue. */
export function isValidLabelValue(v: string): string[] {
  const out: string[] = [];
  if (v.length > 63) out.push(maxLenError(63));
  if (!labelValue.test(v)) out.push(regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", labelValueFmt, 'MyValue', 'my_value', '12345'));
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

/** path.IsValidPathSegmentName (RBAC names and the generic check of every name). */
export function isValidPathSegmentName(v: string): string[] {
  if (v === '.' || v === '..') return [`may not be '${v}'`];
  const out: string[] = [];
  for (const c of ['/', '%']) if (v.includes(c)) out.push(`may not contain '${c}'`);
  return out;
}

/** A name checker: validates a name, or a generateName prefix (its trailing dash allowed). */
export type NameValidator = (name: string, prefix: boolean) => string[];

/** Makes a name validator whose prefix form tolerates a trailing '-' (maskTrailingDash). */
export function nameValidator(check: (v: string) => string[]): NameValidator {
  return (name, prefix) => check(prefix && name.length > 1 && name.endsWith('-') ? `${name.slice(0, -1)}a` : name);
}

/** NameIsDNSSubdomain: most resources. */
export const nameIsDNSSubdomain = nameValidator(isDNS1123Subdomain);
/** NameIsDNSLabel: namespaces. */
export const nameIsDNSLabel = nameValidator(isDNS1123Label);
/** NameIsDNS1035Label: services. */
export const nameIsDNS1035Label = nameValidator(isDNS1035Label);
/** ValidatePathSegmentName: RBAC objects. */
export const namePathSegment: NameValidator = (name, prefix) => (prefix ? isValidPathSegmentName(name) : isValidPathSegmentName(name));

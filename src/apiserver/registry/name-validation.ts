/**
 * The name and value checks of k8s.io/apimachinery/pkg/util/validation/validation.go and
 * k8s.io/apimachinery/pkg/api/validation/generic.go, with upstream's messages: DNS-1123 labels and
 * subdomains, qualified names (label and annotation keys, finalizers), label values, path segment names,
 * and the name validators of object metadata (`prefix` set for generateName, whose trailing dash is masked).
 */

const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedNameErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const qualifiedNameRe = new RegExp(`^${qualifiedNameFmt}$`);
// Names of qualified names, label values and DNS labels are at most this long.
const qualifiedNameMaxLength = 63;
const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueErrMsg = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueRe = new RegExp(`^${labelValueFmt}$`);
const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrMsg = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123LabelRe = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);
// DNS1123SubdomainMaxLength.
const dns1123SubdomainMaxLength = 253;

/** MaxLenError. */
function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

/** RegexError: the message, examples and the regular expression. */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/** IsDNS1123Label. */
export function isDns1123Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > qualifiedNameMaxLength) errs.push(maxLenError(qualifiedNameMaxLength));
  if (!dns1123LabelRe.test(v)) errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  return errs;
}

/** IsDNS1123Subdomain. */
export function isDns1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (v.length > dns1123SubdomainMaxLength) errs.push(maxLenError(dns1123SubdomainMaxLength));
  if (!dns1123SubdomainRe.test(v)) errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

/** IsQualifiedName: `[prefix/]name`, the prefix a DNS subdomain, the name at most 63 characters. */
export function isQualifiedName(v: string): string[] {
  const errs: string[] = [];
  const parts = v.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix === '') errs.push('prefix part must be non-empty');
    else errs.push(...isDns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [`a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (name.length > qualifiedNameMaxLength) errs.push(`name part ${maxLenError(qualifiedNameMaxLength)}`);
  if (!qualifiedNameRe.test(name)) errs.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** IsValidLabelValue. */
export function isValidLabelValue(v: string): string[] {
  const errs: string[] = [];
  if (v.length > qualifiedNameMaxLength) errs.push(maxLenError(qualifiedNameMaxLength));
  if (!labelValueRe.test(v)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** A ValidateNameFunc: the problems of a name, or of a generateName when `prefix` is set. */
export type NameValidator = (name: string, prefix: boolean) => string[];

/**
 * maskTrailingDash: a generateName may end in '-', which the random suffix follows; upstream replaces its
 * last two characters with 'a' before checking it.
 */
export function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

/** NameIsDNSSubdomain: the names of most kinds, and of every custom resource. */
export const nameIsDnsSubdomain: NameValidator = (name, prefix) => isDns1123Subdomain(prefix ? maskTrailingDash(name) : name);

/** NameIsDNSLabel: the names of namespaces. */
export const nameIsDnsLabel: NameValidator = (name, prefix) => isDns1123Label(prefix ? maskTrailingDash(name) : name);

// NameMayNotBe and NameMayNotContain of path segments.
const nameMayNotBe = ['.', '..'];
const nameMayNotContain = ['/', '%'];

function mayNotContain(name: string): string[] {
  return nameMayNotContain.filter((bad) => name.includes(bad)).map((bad) => `may not contain '${bad}'`);
}

/** IsValidPathSegmentName. */
export function isValidPathSegmentName(name: string): string[] {
  const bad = nameMayNotBe.find((b) => name === b);
  return bad !== undefined ? [`may not be '${bad}'`] : mayNotContain(name);
}

/** ValidatePathSegmentName: what any name must be to fit in a URL path segment (the common checks of every write). */
export const pathSegmentName: NameValidator = (name, prefix) => (prefix ? mayNotContain(name) : isValidPathSegmentName(name));

/** ValidateRBACName: RBAC objects' names (`system:controller:x` is fine); generateName is checked the same way. */
export const rbacName: NameValidator = (name) => isValidPathSegmentName(name);

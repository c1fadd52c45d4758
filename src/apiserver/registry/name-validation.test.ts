import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDns1123Label, isQualifiedName, isValidLabelValue, nameIsDnsSubdomain, pathSegmentName, rbacName } from './name-validation.ts';

const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const qualifiedMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

test('qualified names: an optional DNS subdomain prefix and a name of at most 63 characters, with upstream messages', () => {
  const cases: Array<[string, string[]]> = [
    ['app', []],
    ['example.com/app', []],
    ['bad key!', [`name part ${qualifiedMsg}`]],
    ['a'.repeat(64), ['name part must be no more than 63 characters']],
    ['Example.com/x', [`prefix part ${subdomainMsg}`]],
    ['/x', ['prefix part must be non-empty']],
    ['x/', ['name part must be non-empty', `name part ${qualifiedMsg}`]],
    ['a/b/c', [`a qualified name ${qualifiedMsg} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`]],
  ];
  for (const [v, expected] of cases) assert.deepEqual(isQualifiedName(v), expected, v);
});

test('label values, DNS labels, and the name rules of metadata', () => {
  assert.deepEqual(isValidLabelValue(''), []);
  assert.equal(isValidLabelValue('bad value!')[0]!.startsWith("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.'"), true);
  assert.deepEqual(isDns1123Label('a'.repeat(64)), ['must be no more than 63 characters']);
  const cases: Array<[string, boolean, string[]]> = [
    ['web-1', false, []],
    ['web-', true, []],
    ['web-', false, [subdomainMsg]],
    ['Bad_', true, [subdomainMsg]],
  ];
  for (const [name, prefix, expected] of cases) assert.deepEqual(nameIsDnsSubdomain(name, prefix), expected, `${name} ${prefix}`);
  assert.deepEqual(rbacName('system:controller:x', false), []);
  assert.deepEqual(rbacName('..', false), ["may not be '..'"]);
  assert.deepEqual(pathSegmentName('a/b%', true), ["may not contain '/'", "may not contain '%'"]);
});

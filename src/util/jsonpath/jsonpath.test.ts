import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findResults, JsonPathEvalError, JsonPathParseError, parseJsonPath, printResults } from './jsonpath.ts';

/**
 * What kube-apiserver v1.24's CRD table convertor prints for a column path on an object: the path as
 * `{<path>}` with missing keys allowed, the first result printed by PrintResults, null when there is none
 * or the template fails. Every expected value was produced by client-go v1.24's util/jsonpath itself
 * (the vendored package built into a small Go program, fed the same JSON decoded as unstructured
 * decodes it: whole numbers int64).
 */
function cell(path: string, data: unknown): string | null {
  let tpl;
  try {
    tpl = parseJsonPath(`{${path}}`);
  } catch (err) {
    assert.ok(err instanceof JsonPathParseError);
    return null;
  }
  let results;
  try {
    results = findResults(tpl, data, { allowMissingKeys: true });
  } catch (err) {
    assert.ok(err instanceof JsonPathEvalError, String(err));
    return null;
  }
  const first = results[0] ?? [];
  return first.length === 0 ? null : printResults([first[0]]);
}

const cases: [string, unknown, string | null][] = [
  [".status.conditions[?(@.type==\"Ready\")].status", {"status":{"conditions":[{"type":"A","status":"False"},{"type":"Ready","status":"True"}]}}, "True"],
  [".status.conditions[?(@.type=='Ready')].status", {"status":{"conditions":[{"type":"Ready","status":"False"}]}}, "False"],
  [".status.conditions[?(@.type==\"Ready\")].status", {"status":{"conditions":[{"type":"A","status":"False"}]}}, null],
  [".status.conditions[?(@.type==\"Ready\")].status", {"status":{}}, null],
  [".status.conditions[?(@.type==\"Ready\")]", {"status":{"conditions":[{"type":"Ready","status":"True","z":1,"a":"<b>"}]}}, "{\"a\":\"\\u003cb\\u003e\",\"status\":\"True\",\"type\":\"Ready\",\"z\":1}"],
  [".spec.items[?(@.n>2)].name", {"spec":{"items":[{"n":1,"name":"a"},{"n":3,"name":"b"},{"n":5,"name":"c"}]}}, "b"],
  [".spec.items[?(@.n>=2.5)].name", {"spec":{"items":[{"n":1,"name":"a"},{"n":3,"name":"b"}]}}, null],
  [".spec.items[?(@.n>=2.5)].name", {"spec":{"items":[{"n":1.5,"name":"a"},{"n":3.5,"name":"b"}]}}, "b"],
  [".spec.items[?(@.n==\"1\")].name", {"spec":{"items":[{"n":1,"name":"a"}]}}, null],
  [".spec.items[?(@.ok==true)].name", {"spec":{"items":[{"ok":false,"name":"a"},{"ok":true,"name":"b"}]}}, "b"],
  [".spec.items[?(@.ok)].name", {"spec":{"items":[{"name":"a"},{"ok":false,"name":"b"}]}}, "b"],
  [".spec.items[?(@.n!=1)].name", {"spec":{"items":[{"n":1,"name":"a"},{"name":"x"},{"n":2,"name":"b"}]}}, "b"],
  [".spec.items[?(@.n<\"b\")].name", {"spec":{"items":[{"n":"c","name":"a"},{"n":"a","name":"b"}]}}, "b"],
  [".spec.items[?(@.n==null)].name", {"spec":{"items":[{"n":1,"name":"a"}]}}, null],
  [".spec.containers[*].name", {"spec":{"containers":[{"name":"a"},{"name":"b"}]}}, "a"],
  [".spec.containers[1].name", {"spec":{"containers":[{"name":"a"},{"name":"b"}]}}, "b"],
  [".spec.containers[-1].name", {"spec":{"containers":[{"name":"a"},{"name":"b"}]}}, "b"],
  [".spec.containers[5].name", {"spec":{"containers":[{"name":"a"},{"name":"b"}]}}, null],
  [".spec.containers[1:].name", {"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}}, "b"],
  [".spec.containers[::2]", {"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}}, "{\"name\":\"a\"}"],
  [".spec.containers[0,2].name", {"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}}, "a"],
  [".spec.containers[2,0].name", {"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}}, "c"],
  [".spec['x.y']", {"spec":{"x.y":"dotted"}}, null],
  [".metadata.labels.app\\.kubernetes\\.io/name", {"metadata":{"labels":{"app.kubernetes.io/name":"web"}}}, "web"],
  [".spec['a','b']", {"spec":{"a":1,"b":2}}, "1"],
  ["..name", {"spec":{"x":{"name":"deep"}}}, "deep"],
  [".spec..image", {"spec":{"containers":[{"image":"nginx"},{"image":"redis"}]}}, "nginx"],
  [".spec.replicas", {"spec":{"replicas":3}}, "3"],
  [".spec.ratio", {"spec":{"ratio":0.25}}, "0.25"],
  [".spec.big", {"spec":{"big":1234567.5}}, "1.2345675e+06"],
  [".spec.small", {"spec":{"small":1e-05}}, "1e-05"],
  [".spec.flag", {"spec":{"flag":true}}, "true"],
  [".spec.nothing", {"spec":{"nothing":null}}, "<no value>"],
  [".spec.list", {"spec":{"list":[1,"a",{"b":"<&>"}]}}, "[1,\"a\",{\"b\":\"\\u003c\\u0026\\u003e\"}]"],
  [".spec.obj", {"spec":{"obj":{"z":1,"a":{"y":2,"b":3}}}}, "{\"a\":{\"b\":3,\"y\":2},\"z\":1}"],
  [".spec.missing", {"spec":{}}, null],
  [".spec.replicas.deeper", {"spec":{"replicas":3}}, null],
  [".spec.name[0]", {"spec":{"name":"abc"}}, null],
  [".spec.conditions[?(@.type==\"Ready\")].status", {"spec":{"conditions":{"type":"Ready"}}}, null],
  [".status.conditions[?(@.status==\"True\")].type", {"status":{"conditions":[{"type":"A","status":"True"},{"type":"B","status":"True"}]}}, "A"],
  [".items[?(@.a.b==1)].c", {"items":[{"a":{"b":1},"c":"x"}]}, "x"],
  [".items[?(@.n==1.0)].c", {"items":[{"n":1,"c":"x"}]}, null],
  [".status.conditions[?(@.type==\"Ready\"].status", {}, null],
  [".spec.x[abc]", {}, null],
  [".spec.*", {"spec":{"only":"one"}}, "one"],
];

test('JSONPath printer-column cells are those client-go v1.24 computes (filters, slices, unions, recursive descent, Go printing)', () => {
  for (const [path, data, expected] of cases) assert.equal(cell(path, data), expected, path);
});

test('JSONPath templates: text around actions, one result list per node, missing keys an error unless allowed', () => {
  const tpl = parseJsonPath('name={.metadata.name} n={.spec.items[*].n}');
  const data = { metadata: { name: 'x' }, spec: { items: [{ n: 1 }, { n: 2 }] } };
  assert.deepEqual(findResults(tpl, data), [['name='], ['x'], [' n='], [1, 2]]);
  assert.equal(printResults([1, 2, 'a']), '1 2 a');
  assert.throws(() => findResults(parseJsonPath('{.nope}'), data), (err: unknown) => err instanceof JsonPathEvalError && err.message === 'nope is not found');
  assert.deepEqual(findResults(parseJsonPath('{.nope}'), data, { allowMissingKeys: true }), [[]]);
  assert.throws(() => parseJsonPath('{.a'), (err: unknown) => err instanceof JsonPathParseError && err.message === 'unclosed action');
});

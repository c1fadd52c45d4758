import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GoJsonSyntaxError, parseGoJson } from './go-json.ts';

test('duplicate keys: the last scalar wins, objects are merged, as encoding/json decodes into a struct', () => {
  assert.deepEqual(parseGoJson('{"a":1,"a":2}'), { a: 2 });
  assert.deepEqual(parseGoJson('{"a":{"x":1},"a":{"y":2}}'), { a: { x: 1, y: 2 } });
});

test("syntax errors carry encoding/json's messages", () => {
  const cases: Array<[string, string]> = [
    ['{"a":1', 'unexpected end of JSON input'],
    ['', 'unexpected end of JSON input'],
    ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')"],
    ['{"a":1}x', "invalid character 'x' after top-level value"],
    ['{"a":"\\u12"}', `invalid character '"' in \\u hexadecimal character escape`],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => parseGoJson(text),
      (err: unknown) => err instanceof GoJsonSyntaxError && err.message === message,
      text,
    );
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QuantityParseError, milliValue, parseQuantity, value } from './quantity.ts';

test('quantities read with their decimal, binary and exponent suffixes', () => {
  const table: Array<[string, number]> = [
    ['1', 1],
    ['250m', 0.25],
    ['1.5', 1.5],
    ['100n', 1e-7],
    ['5u', 5e-6],
    ['2k', 2000],
    ['3M', 3e6],
    ['1Ki', 1024],
    ['64Mi', 64 * 2 ** 20],
    ['2Gi', 2 * 2 ** 30],
    ['1e3', 1000],
    ['1E-3', 0.001],
    ['+4', 4],
    ['.5', 0.5],
  ];
  for (const [text, expected] of table) assert.ok(Math.abs(parseQuantity(text) - expected) < 1e-12, `${text} -> ${parseQuantity(text)}`);
});

test('milliValue and value round up as Quantity.MilliValue and Quantity.Value', () => {
  assert.equal(milliValue('250m'), 250);
  assert.equal(milliValue('1'), 1000);
  assert.equal(milliValue('123456789n'), 124);
  assert.equal(milliValue('1500u'), 2);
  assert.equal(value('1Ki'), 1024);
  assert.equal(value('1500m'), 2);
  assert.equal(value('128974848'), 128974848);
});

test('malformed quantities are refused with QuantityParseError', () => {
  for (const bad of ['', 'abc', '1Kb', '1.2.3', '1 Mi', 'Mi']) assert.throws(() => parseQuantity(bad), QuantityParseError, bad);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalQuantity, compareQuantities, parseQuantity, QuantityFormatError } from './quantity.ts';

// Expected values are what resource.Quantity's String() gives after parsing (k8s.io/apimachinery/pkg/api/resource).
test('canonical forms keep the suffix family and pick the largest exact unit', () => {
  const cases: Array<[string, string]> = [
    ['100m', '100m'],
    ['0.5', '500m'],
    ['1000m', '1'],
    ['1024Mi', '1Gi'],
    ['1.5Gi', '1536Mi'],
    ['2k', '2k'],
    ['1e3', '1e3'],
    ['0.1m', '100u'],
    ['+1', '1'],
    ['-1', '-1'],
    ['0', '0'],
  ];
  for (const [input, canonical] of cases) assert.equal(canonicalQuantity(input), canonical, input);
});

test('quantities compare by value across suffixes; malformed ones are QuantityFormatErrors', () => {
  assert.equal(compareQuantities(parseQuantity('1Gi'), parseQuantity('1000Mi')), 1);
  assert.equal(compareQuantities(parseQuantity('500m'), parseQuantity('0.5')), 0);
  assert.equal(compareQuantities(parseQuantity('1k'), parseQuantity('1Ki')), -1);
  for (const bad of ['abc', '1.2.3', '', '5Qi']) assert.throws(() => parseQuantity(bad), QuantityFormatError, bad);
});

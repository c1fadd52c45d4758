import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WarningLogger, parseWarningHeaders } from './warnings.ts';

test('parseWarningHeaders reads code, agent and quoted text, several per header', () => {
  assert.deepEqual(parseWarningHeaders(['299 - "apps/v1beta1 is deprecated", 299 - "unknown field \\"spec.foo\\""', '299 kube "x" "Sat, 01 Jan 2000 00:00:00 GMT"']), [
    { code: 299, agent: '-', text: 'apps/v1beta1 is deprecated' },
    { code: 299, agent: '-', text: 'unknown field "spec.foo"' },
    { code: 299, agent: 'kube', text: 'x' },
  ]);
  assert.deepEqual(parseWarningHeaders(['garbage', '']), []);
});

test('WarningLogger logs each distinct 299 warning once', () => {
  const lines: string[] = [];
  const logger = new WarningLogger((l) => lines.push(l));
  for (const text of ['a', 'b', 'a']) logger.handleWarning({ code: 299, agent: '-', text });
  logger.handleWarning({ code: 199, agent: '-', text: 'misc' });
  assert.deepEqual(lines, ['Warning: a\n', 'Warning: b\n']);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Taint, Toleration } from '../../api/core/v1.ts';
import { getMatchingTolerations, getMinTolerationTime, getNoExecuteTaints } from './taint-manager.ts';

const unreachable: Taint = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' };
const notReady: Taint = { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' };

test('getMinTolerationTime: the smallest tolerationSeconds, 0 for none or a non-positive one, -1 (forever) when none has seconds (upstream table)', () => {
  const t = (s?: number): Toleration => ({ operator: 'Exists', ...(s === undefined ? {} : { tolerationSeconds: s }) });
  assert.equal(getMinTolerationTime([]), 0);
  assert.equal(getMinTolerationTime([t()]), -1);
  assert.equal(getMinTolerationTime([t(), t(20), t(60)]), 20_000);
  assert.equal(getMinTolerationTime([t(20), t(-5)]), 0);
  assert.equal(getMinTolerationTime([t(0)]), 0);
});

test('getMatchingTolerations: every taint needs a toleration; the first matching one per taint is used', () => {
  const forUnreachable: Toleration = { key: unreachable.key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 20 };
  const wildcard: Toleration = { operator: 'Exists' };
  assert.deepEqual(getMatchingTolerations([unreachable, notReady], [forUnreachable]), { allTolerated: false, used: [] });
  assert.deepEqual(getMatchingTolerations([unreachable, notReady], [forUnreachable, wildcard]), { allTolerated: true, used: [forUnreachable, wildcard] });
  assert.deepEqual(getMatchingTolerations([], []), { allTolerated: true, used: [] });
  assert.deepEqual(getNoExecuteTaints([{ key: 'x', effect: 'NoSchedule' }, unreachable]), [unreachable]);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { learnPolicy, type RecordedRequest } from './learn.ts';

const manager = 'kubeloom/0.1.0 (node/24.9.0) kubeloom-manager';
const req = (over: Partial<RecordedRequest>): RecordedRequest => ({
  user: 'admin',
  groups: ['system:masters', 'system:authenticated'],
  userAgent: manager,
  verb: 'get',
  resourceRequest: true,
  path: '',
  apiGroup: '',
  resource: 'pods',
  subresource: '',
  namespace: 'default',
  name: '',
  ...over,
});

test('learnPolicy keeps the selected client’s requests, adds list to streamed watches, puts Leases in a Role and leaves out what everyone may do', () => {
  const records = [
    req({ verb: 'watch', resource: 'pods', namespace: '', sendInitialEvents: true }),
    req({ verb: 'update', resource: 'pods', subresource: 'status', name: 'p' }),
    req({ verb: 'create', resource: 'pods', userAgent: 'kubeloom/0.1.0 (node/24.9.0)' }),
    req({ verb: 'get', apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-system', name: 'lock' }),
    req({ verb: 'get', resourceRequest: false, path: '/apis', resource: '', namespace: '' }),
    req({ verb: 'create', apiGroup: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews', namespace: '' }),
    req({ verb: 'get', resourceRequest: false, path: '/metrics', resource: '', namespace: '' }),
  ];
  const learned = learnPolicy(records);
  assert.deepEqual(learned.clusterRole.rules, [
    { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
    { apiGroups: [''], resources: ['pods/status'], verbs: ['update'] },
    { nonResourceURLs: ['/metrics'], verbs: ['get'] },
  ]);
  assert.deepEqual(learned.role, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'leader-election-role', namespace: 'kube-system' },
    rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get'] }],
  });
  assert.deepEqual([learned.recorded, learned.selected, learned.allowedToEveryone], [7, 6, 2]);
  // By user instead of User-Agent, with the Role's namespace given.
  const byUser = learnPolicy([req({ user: 'system:serviceaccount:ops:op', userAgent: '', verb: 'delete', resource: 'configmaps', name: 'x' }), ...records], {
    select: { user: 'system:serviceaccount:ops:op' },
    namespace: 'ops',
    clusterRoleName: 'op',
  });
  assert.deepEqual(byUser.clusterRole.metadata, { name: 'op' });
  assert.deepEqual(byUser.clusterRole.rules, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['delete'] }]);
  assert.equal(byUser.role, undefined);
});

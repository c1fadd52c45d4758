/**
 * `kubeloom rbac learn -- node <suite>` end to end: the real CLI runs a small test suite
 * (test/fixtures/rbac-operator/suite.ts: an embedded API server, the copy operator, and the suite's own
 * admin client doing the setup) and writes exactly the operator's least-privilege rules; `kubeloom rbac
 * check` then passes against matching declared rules and names every disagreement otherwise.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../bin/kubeloom.js', import.meta.url));
const suite = fileURLToPath(new URL('./fixtures/rbac-operator/suite.ts', import.meta.url));

function kubeloom(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { cwd, env: { ...process.env, NODE_NO_WARNINGS: '1' } }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
    });
  });
}

const learnedYaml = (command: string): string => `# Learned by \`kubeloom rbac learn -- ${command}\` from the requests of the User-Agent containing "kubeloom-manager".
# Regenerate rather than edit; \`kubeloom rbac check\` compares it with the declared rules.
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: manager-role
rules:
  - apiGroups:
      - ""
    resources:
      - configmaps
    verbs:
      - list
      - patch
      - watch
  - apiGroups:
      - ""
    resources:
      - secrets
    verbs:
      - create
      - list
      - update
      - watch
  - apiGroups:
      - events.k8s.io
    resources:
      - events
    verbs:
      - create
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: leader-election-role
  namespace: operator-system
rules:
  - apiGroups:
      - coordination.k8s.io
    resources:
      - leases
    verbs:
      - create
      - get
      - update
      - watch
`;

// What kubebuilder-style declared rules for `for(ConfigMap).owns(Secret)` plus events look like.
const declaredRole = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: manager-role
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list, patch, watch]
- apiGroups: [""]
  resources: [secrets]
  verbs: [create, delete, get, list, patch, update, watch]
`;
const declaredLeaderElection = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: leader-election-role
  namespace: operator-system
rules:
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [create, get, update, watch]
`;

test('kubeloom rbac learn runs a test suite and writes exactly the operator’s rules; rbac check passes on them and names each disagreement otherwise', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-rbac-learn-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const learned = join(dir, 'config/rbac/learned_role.yaml');
  const run = await kubeloom(['rbac', 'learn', '--namespace', 'operator-system', '--', process.execPath, suite], dir);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /copy operator suite passed/);
  assert.match(run.stdout, /wrote config\/rbac\/learned_role\.yaml: ClusterRole manager-role \(8 permissions, 3 rules\), Role operator-system\/leader-election-role \(4 permissions\)\n/);
  assert.equal(await readFile(learned, 'utf8'), learnedYaml(`${process.execPath} ${suite}`));

  // The learned file checked against itself, split as kubebuilder splits it: agreement.
  await writeFile(join(dir, 'exact.yaml'), (await readFile(learned, 'utf8')).split('---\n')[1]!);
  await writeFile(join(dir, 'exact-le.yaml'), (await readFile(learned, 'utf8')).split('---\n')[2]!);
  const agree = await kubeloom(['rbac', 'check', '--declared', 'exact.yaml', '--declared', 'exact-le.yaml'], dir);
  assert.equal(agree.code, 0, agree.stderr);
  assert.equal(agree.stdout, 'kubeloom rbac check: exact.yaml, exact-le.yaml and config/rbac/learned_role.yaml agree\n');

  // Declared rules from for/owns: more verbs than used, and no events permission.
  await writeFile(join(dir, 'config/rbac/role.yaml'), declaredRole);
  await writeFile(join(dir, 'config/rbac/leader_election_role.yaml'), declaredLeaderElection);
  const disagree = await kubeloom(['rbac', 'check'], dir);
  assert.equal(disagree.code, 1);
  assert.equal(
    disagree.stderr,
    `kubeloom rbac check: config/rbac/role.yaml, config/rbac/leader_election_role.yaml and config/rbac/learned_role.yaml disagree:
  used but not granted (ClusterRole): create events.k8s.io/events
  granted but unused (ClusterRole): get configmaps
  granted but unused (ClusterRole): delete secrets
  granted but unused (ClusterRole): get secrets
  granted but unused (ClusterRole): patch secrets
`,
  );
  const missingOnly = await kubeloom(['rbac', 'check', '--missing-only'], dir);
  assert.equal(missingOnly.code, 1);
  assert.match(missingOnly.stderr, /^ {2}used but not granted \(ClusterRole\): create events\.k8s\.io\/events\n$/m);
  assert.doesNotMatch(missingOnly.stderr, /granted but unused/);

  // Without leader election rules declared, the Role's permissions are missing.
  await rm(join(dir, 'config/rbac/leader_election_role.yaml'));
  const noRole = await kubeloom(['rbac', 'check', '--missing-only'], dir);
  assert.equal(noRole.code, 1);
  assert.match(noRole.stderr, /used but not granted \(Role\): create coordination\.k8s\.io\/leases\n {2}used but not granted \(Role\): get coordination\.k8s\.io\/leases\n {2}used but not granted \(Role\): update coordination\.k8s\.io\/leases\n {2}used but not granted \(Role\): watch coordination\.k8s\.io\/leases\n/);
});

test('kubeloom rbac learn without a command, or with a command that starts no manager, fails with a sentence', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-rbac-learn-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const bare = await kubeloom(['rbac', 'learn'], dir);
  assert.equal(bare.code, 2);
  assert.match(bare.stderr, /^kubeloom rbac: name the command to run after --, e\.g\. kubeloom rbac learn -- npm test\n/);
  const nothing = await kubeloom(['rbac', 'learn', '--', process.execPath, '-e', '0'], dir);
  assert.equal(nothing.code, 1);
  assert.match(nothing.stderr, /no request of the operator was recorded/);
  const failing = await kubeloom(['rbac', 'learn', '--', process.execPath, '-e', 'process.exit(3)'], dir);
  assert.equal(failing.code, 3);
  assert.match(failing.stderr, /the command exited with 3; the rules may be incomplete/);
  const missing = await kubeloom(['rbac', 'check', '--declared', 'nope.yaml'], dir);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^kubeloom rbac: cannot read nope\.yaml: ENOENT/);
});

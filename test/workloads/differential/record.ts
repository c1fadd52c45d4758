/**
 * Records the golden file of the differential check: the workload script (scenario.ts) on the embedded
 * server — scheduler and kubelet stand-ins, none of its own controllers — with the real
 * kube-controller-manager v1.24 doing the work.
 *
 *   node test/workloads/differential/record.ts [path/to/kube-controller-manager] [--script=features]
 *
 * `--script=gated` records the third (features.ts runGated: StatefulSet maxUnavailable and claim
 * retention, the real kube-controller-manager given `--feature-gates` for both) into
 * golden/kcm-v1.24-gated.json.
 *
 * `--script=features` records the second script (features.ts: Indexed Job, DaemonSet maxSurge,
 * StatefulSet revision hashes) into golden/kcm-v1.24-features.json, on a kubelet stand-in of two nodes.
 *
 * Default binary: /root/realk8s/bin/kube-controller-manager (see ../shared/realk8s). It runs with the
 * flags controllers.sh gives it (every controller but the token controller) and is stopped at the end;
 * its log goes to $TMPDIR/kubeloom-kcm-<pid>.log.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { startApiServer } from '../../../src/apiserver/index.ts';
import { newClientset } from '../../../src/kubernetes/clientset.ts';
import { normalise, runScenario } from './scenario.ts';
import { featureNodes, gatedFeatureGates, runFeatures, runGated } from './features.ts';

const args = process.argv.slice(2);
const features = args.includes('--script=features');
const gated = args.includes('--script=gated');
const binary = args.find((a) => !a.startsWith('--')) ?? '/root/realk8s/bin/kube-controller-manager';
const server = await startApiServer({ controllers: { scheduler: true, kubelet: features ? { nodes: featureNodes } : true, ...(gated ? { volumes: true } : {}), garbageCollector: false, namespace: false } });
const dir = await mkdtemp(join(tmpdir(), 'kubeloom-kcm-'));
const kubeconfig = join(dir, 'kubeconfig');
await server.writeKubeconfig(kubeconfig);
const log = join(tmpdir(), `kubeloom-kcm-${process.pid}.log`);
const out = openSync(log, 'a');
const kcm = spawn(binary, ['--kubeconfig', kubeconfig, '--secure-port=0', '--leader-elect=true', "--controllers=*,-serviceaccount-token", '--v=2', ...(gated ? [`--feature-gates=${Object.entries(gatedFeatureGates).map(([k, v]) => `${k}=${String(v)}`).join(',')}`] : [])], { stdio: ['ignore', out, out] });
const client = newClientset({ host: server.url });
try {
  const snapshot = gated ? await runGated(client) : features ? await runFeatures(client) : normalise(await runScenario(client));
  const version = (await import('node:child_process')).execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
  const golden = { recordedFrom: { controllerManager: version, apiServer: 'kubeloom embedded (scheduler and kubelet stand-ins)' }, snapshot };
  const path = new URL(gated ? './golden/kcm-v1.24-gated.json' : features ? './golden/kcm-v1.24-features.json' : './golden/kcm-v1.24.json', import.meta.url);
  await writeFile(path, `${JSON.stringify(golden, null, 1)}\n`);
  console.log(`recorded ${path.pathname} (kube-controller-manager log: ${log})`);
} finally {
  kcm.kill('SIGTERM');
  await once(kcm, 'exit');
  await client.close();
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}

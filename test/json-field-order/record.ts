/**
 * Records golden.json from a real kube-apiserver (v1.24 for the committed file):
 *
 *   node test/json-field-order/record.ts --kubeconfig ~/realk8s/kubeconfig
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { backendFromKubeconfig } from '../fidelity/backend.ts';
import { runProbe } from './probe.ts';

const { values } = parseArgs({ options: { kubeconfig: { type: 'string' } } });
if (values.kubeconfig === undefined) {
  process.stderr.write('usage: node test/json-field-order/record.ts --kubeconfig K\n');
  process.exit(2);
}
const backend = await backendFromKubeconfig('real', await readFile(values.kubeconfig, 'utf8'));
try {
  const answers = await runProbe({ url: backend.url, dispatcher: backend.dispatcher, ...(backend.token === undefined ? {} : { token: backend.token }) });
  await writeFile(new URL('./golden.json', import.meta.url), `${JSON.stringify(answers, null, 1)}\n`);
} finally {
  await backend.close();
}

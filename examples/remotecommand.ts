/**
 * exec, port-forward and metrics against the embedded API server, whose pod handlers stand in for a
 * kubelet: the same calls work against a cluster. Needs no cluster: `node examples/remotecommand.ts`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { loadKubeConfig, restConfigFrom } from 'kubeloom/clientcmd';
import { newClientset } from 'kubeloom/kubernetes';
import { startApiServer } from 'kubeloom/testing';

const server = await startApiServer();
const dir = await mkdtemp(join(tmpdir(), 'kubeloom-example-'));
const kubeconfigFile = join(dir, 'kubeconfig');
await server.writeKubeconfig(kubeconfigFile);
await newClientset({ host: server.url }).coreV1().pods('default').create({
  metadata: { name: 'web' },
  spec: { containers: [{ name: 'app', image: 'nginx', ports: [{ containerPort: 80 }] }] },
  status: { phase: 'Running' },
});

// #region handlers
server.setPodHandler('default', 'web', {
  containers: {
    // exec and attach: resolve the exit code; throw for a runtime error (500 Status)
    app: async ({ command, stdin, stdout, tty }) => {
      if (command[0] === 'false') return 1;
      if (tty) stdin?.pipe(stdout!); // an echoing terminal
      else stdout?.write(`you ran ${command.join(' ')}\n`);
      if (tty) await new Promise((resolve) => stdin?.once('end', resolve));
      return 0;
    },
  },
  ports: {
    80: (connection) => connection.end('hello from port 80\n'), // served by a function (a Duplex)
    // 81: { host: '127.0.0.1', port: 3000 },                  // or dialled at an address
  },
});
server.setPodMetrics([{ namespace: 'default', name: 'web', containers: [{ name: 'app', usage: { cpu: '250m', memory: '64Mi' } }] }]);
// #endregion

// #region using
import { RestClient } from 'kubeloom/rest';
import { exec, NonZeroExitCodeError, ResizeQueue } from 'kubeloom/tools/remotecommand';
import { portForward } from 'kubeloom/tools/portforward';
import { MetricsClient } from 'kubeloom/metrics';

const client = new RestClient(await restConfigFrom(await loadKubeConfig({ path: kubeconfigFile })));

// Run a command; resolves on exit code 0.
await exec(client, { namespace: 'default', pod: 'web', container: 'app', command: ['ls', '/'], stdout: process.stdout, stderr: process.stderr });
try {
  await exec(client, { namespace: 'default', pod: 'web', command: ['false'], stdout: process.stdout });
} catch (err) {
  if (!(err instanceof NonZeroExitCodeError)) throw err;
  console.log(`exit code ${err.exitCode}`);
}

// A terminal: the end of stdin closes the remote stdin (v5); resizes are sent as they come.
const stdin = new PassThrough(); // process.stdin for a real terminal
const stdout = new PassThrough(); // process.stdout
const sizes = new ResizeQueue(); // process.stdout.on('resize', () => sizes.resize({ width: process.stdout.columns, ... }))
const session = exec(client, { namespace: 'default', pod: 'web', command: ['sh'], tty: true, stdin, stdout, terminalSize: { width: 80, height: 24 }, terminalSizeQueue: sizes });
sizes.resize({ width: 120, height: 40 });
stdin.end('echo hi\n');
await session;
console.log(`terminal said: ${JSON.stringify(String(stdout.read() as Buffer | null))}`);

// kubectl port-forward web :80 (any free local port; many connections share the forward)
const pf = portForward(client, { namespace: 'default', pod: 'web', ports: [':80'], onError: (e) => console.error(e.message) });
await pf.ready; // listening
const [port] = pf.getPorts();
const reply = await new Promise<string>((resolve) => connect(port!.local, '127.0.0.1').on('data', (d) => resolve(d.toString())));
console.log(`port ${port!.local} → 80: ${reply.trim()}`);
await pf.close(); // or: pf.done rejects with LostConnectionError when the pod connection drops

// kubectl top pod
const top = await new MetricsClient(client).topPods('default'); // [{ name, cpuMillicores, memoryBytes, containers }]
console.log(top.map((p) => `${p.name}: ${p.cpuMillicores}m, ${p.memoryBytes / 2 ** 20}Mi`));
// #endregion

await client.close();
await server.stop();
await rm(dir, { recursive: true, force: true });

// A throwaway etcd for tests: `etcd` from PATH or /usr/bin (Debian's etcd-server, scripts/install-etcd.sh)
// on free loopback ports, data in a temporary directory removed on stop. Tests skip when no binary is found,
// unless KUBELOOM_REQUIRE_ETCD is set (CI), which makes the absence an error.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { EtcdClient } from '../../src/apiserver/storage/etcd-client.ts';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The etcd binary to run, or undefined. */
export function etcdBinary(): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(path.delimiter), '/usr/bin', '/usr/local/bin']) {
    const file = path.join(dir, 'etcd');
    if (dir !== '' && existsSync(file)) return file;
  }
  return undefined;
}

/** Why etcd tests skip (undefined: they run). Throws when KUBELOOM_REQUIRE_ETCD is set and there is no etcd. */
export function etcdSkipReason(): string | undefined {
  if (etcdBinary() !== undefined) return undefined;
  if (process.env.KUBELOOM_REQUIRE_ETCD !== undefined && process.env.KUBELOOM_REQUIRE_ETCD !== '') throw new Error('KUBELOOM_REQUIRE_ETCD is set but no etcd binary was found (run scripts/install-etcd.sh)');
  return 'no etcd binary (install Debian etcd-server: scripts/install-etcd.sh)';
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** A running test etcd. */
export interface TestEtcd {
  /** Its client URL. */
  readonly url: string;
  /** With `tls`: the CA and the client certificate and key, as PEM and as files. */
  readonly tls?: { ca: string; cert: string; key: string };
  readonly files?: { ca: string; cert: string; key: string };
  /** Stops it (SIGTERM) and starts it again on the same data and ports: every connection to it breaks. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

// A CA, a serving certificate for 127.0.0.1 and a client certificate, made with openssl in `dir`. The serving
// certificate can authenticate clients too: etcd's gRPC gateway presents it when it dials etcd itself.
function makeCertificates(dir: string): { ca: string; serverCert: string; serverKey: string; cert: string; key: string } {
  const f = (name: string): string => path.join(dir, name);
  const run = (args: string[]): void => void execFileSync('openssl', args, { stdio: 'ignore' });
  run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.crt'), '-days', '1', '-subj', '/CN=test-etcd-ca']);
  for (const [name, ext] of [['server', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth'], ['client', 'extendedKeyUsage=clientAuth']] as const) {
    writeFileSync(f(`${name}.ext`), ext);
    run(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', `/CN=${name}`]);
    run(['x509', '-req', '-in', f(`${name}.csr`), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f(`${name}.crt`), '-days', '1', '-extfile', f(`${name}.ext`)]);
  }
  return { ca: f('ca.crt'), serverCert: f('server.crt'), serverKey: f('server.key'), cert: f('client.crt'), key: f('client.key') };
}

/** Starts an etcd on free loopback ports and waits until it answers; with `tls`, on https with client certificates required. */
export async function startTestEtcd(options: { tls?: boolean } = {}): Promise<TestEtcd> {
  const bin = etcdBinary();
  if (bin === undefined) throw new Error('no etcd binary');
  const dir = mkdtempSync(path.join(tmpdir(), 'kubeloom-etcd-'));
  const [client, peer] = [await freePort(), await freePort()];
  const certDir = options.tls === true ? mkdtempSync(path.join(tmpdir(), 'kubeloom-etcd-certs-')) : undefined;
  const certs = certDir === undefined ? undefined : makeCertificates(certDir);
  const url = `${certs === undefined ? 'http' : 'https'}://127.0.0.1:${client}`;
  const args = ['--name', 'test', '--data-dir', dir, '--listen-client-urls', url, '--advertise-client-urls', url, '--listen-peer-urls', `http://127.0.0.1:${peer}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${peer}`, '--initial-cluster', `test=http://127.0.0.1:${peer}`, '--log-level', 'error'];
  if (certs !== undefined) args.push('--cert-file', certs.serverCert, '--key-file', certs.serverKey, '--trusted-ca-file', certs.ca, '--client-cert-auth');
  const tls = certs === undefined ? undefined : { ca: readFileSync(certs.ca, 'utf8'), cert: readFileSync(certs.cert, 'utf8'), key: readFileSync(certs.key, 'utf8') };
  const probe = new EtcdClient([url], tls);
  const launch = async (): Promise<{ child: ChildProcess; exited: Promise<void> }> => {
    const child: ChildProcess = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    for (let i = 0; ; i++) {
      try {
        await probe.range('x');
        break;
      } catch {
        // not up yet
      }
      if (child.exitCode !== null || i > 400) {
        child.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
        throw new Error(`etcd did not start: ${stderr}`);
      }
      await sleep(50);
    }
    return { child, exited };
  };
  let running = await launch();
  return {
    url,
    ...(tls === undefined ? {} : { tls, files: { ca: certs!.ca, cert: certs!.cert, key: certs!.key } }),
    async restart() {
      running.child.kill('SIGTERM');
      await running.exited;
      running = await launch();
    },
    async stop() {
      running.child.kill('SIGTERM');
      await running.exited;
      rmSync(dir, { recursive: true, force: true });
      if (certDir !== undefined) rmSync(certDir, { recursive: true, force: true });
    },
  };
}

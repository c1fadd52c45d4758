/**
 * The key pair ServiceAccount tokens are signed and verified with: kube-apiserver's
 * --service-account-signing-key-file / --service-account-key-file (kubeadm keeps it as pki/sa.key). A
 * server without a data directory makes a pair when it first signs or verifies a token; a server with
 * `dataDir` keeps the private key in `DIR/sa.key` so tokens issued before a restart still verify, and a
 * fork shares its parent's key so tokens issued by either verify on both.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The file under a data directory that holds the signing key (PKCS#8 PEM), as kubeadm's pki/sa.key. */
export const serviceAccountKeyFile = 'sa.key';

/** A loaded key pair and its key id. */
export interface ServiceAccountKeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** As upstream's keyIDFromPublicKey (pkg/serviceaccount/jwt.go): base64url SHA-256 of the DER public key. */
  keyId: string;
}

/**
 * One ES256 signing key, made on first use unless given as PEM: most servers never sign or verify a
 * token, and making a pair costs a good part of a test server's start.
 */
export class ServiceAccountSigningKey {
  #pair: ServiceAccountKeyPair | undefined;
  readonly #pem: string | undefined;

  /** @param pem a PKCS#8 (or SEC1) PEM private key; omitted: a new P-256 pair is made on first use. */
  constructor(pem?: string) {
    this.#pem = pem;
  }

  /** The key pair, made or parsed on first call. */
  pair(): ServiceAccountKeyPair {
    if (this.#pair === undefined) {
      const privateKey = this.#pem === undefined ? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey : createPrivateKey(this.#pem);
      const publicKey = createPublicKey(privateKey);
      this.#pair = { privateKey, publicKey, keyId: createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url') };
    }
    return this.#pair;
  }

  /** The private key as PKCS#8 PEM (making the pair if it was not made yet). */
  pem(): string {
    return this.#pem ?? (this.pair().privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
  }
}

/**
 * The signing key kept in `dir/sa.key`: read when the file exists, else made now and written (mode 0600),
 * so a server started again on the same data directory verifies the tokens it issued before.
 */
export async function keptServiceAccountKey(dir: string): Promise<ServiceAccountSigningKey> {
  const file = path.join(dir, serviceAccountKeyFile);
  try {
    return new ServiceAccountSigningKey(await readFile(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const key = new ServiceAccountSigningKey();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(file, key.pem(), { mode: 0o600, flag: 'wx' });
  return key;
}

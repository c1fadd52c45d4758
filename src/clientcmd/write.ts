/**
 * Saving kubeconfigs (clientcmd.WriteToFile). Files hold credentials, so they are always left with
 * mode 0600, including when they already existed with wider permissions.
 */
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { kubeConfigToV1 } from './api/v1/conversion.ts';
import type { KubeConfig } from './api/types.ts';

/** The permissions of every kubeconfig kubeloom writes: owner read/write only. */
export const kubeConfigFileMode = 0o600;

/** The YAML text of `config`, secrets included (this is what {@link writeKubeConfig} saves). */
export function serializeKubeConfig(config: KubeConfig): string {
  return stringify(kubeConfigToV1(config), { lineWidth: 0 });
}

/**
 * Writes `config` to `file` as YAML with mode 0600, creating missing parent directories (mode 0700).
 * An existing file is first restricted to 0600, then truncated and rewritten, so the secrets are never
 * readable by others, not even for a moment.
 *
 * @example
 * await writeKubeConfig(path.join(os.homedir(), '.kube', 'config'), config);
 */
export async function writeKubeConfig(file: string, config: KubeConfig): Promise<void> {
  const text = serializeKubeConfig(config);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const handle = await open(file, 'a', kubeConfigFileMode);
  try {
    await handle.chmod(kubeConfigFileMode);
    await handle.truncate(0);
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

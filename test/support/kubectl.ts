/**
 * Finding kubectl for the tests that drive it: `KUBECTL`, else `kubectl` on the PATH, else the usual
 * install locations; undefined when none answers `kubectl version --client`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The first kubectl that runs, or undefined. */
export async function findKubectl(): Promise<string | undefined> {
  for (const candidate of [process.env.KUBECTL, 'kubectl', '/usr/bin/kubectl', '/usr/local/bin/kubectl']) {
    if (candidate === undefined || candidate === '') continue;
    try {
      await run(candidate, ['version', '--client'], { timeout: 20_000 });
      return candidate;
    } catch {
      // try the next one
    }
  }
  return undefined;
}

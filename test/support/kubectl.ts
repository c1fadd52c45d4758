/**
 * Finding kubectl for the tests that drive it: `KUBECTL`, else `kubectl` on the PATH, else the usual
 * install locations, else the one `npm run tools` puts in .kubeloom-tools/bin; undefined when none answers
 * `kubectl version --client`. With `KUBELOOM_REQUIRE_KUBECTL=1` (as CI sets it) a missing kubectl is an
 * error instead, so the kubectl tests cannot pass by being skipped.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const installed = fileURLToPath(new URL('../../.kubeloom-tools/bin/kubectl', import.meta.url));

/** The first kubectl that runs, or undefined. */
export async function findKubectl(): Promise<string | undefined> {
  for (const candidate of [process.env.KUBECTL, 'kubectl', '/usr/bin/kubectl', '/usr/local/bin/kubectl', installed]) {
    if (candidate === undefined || candidate === '') continue;
    try {
      await run(candidate, ['version', '--client'], { timeout: 20_000 });
      return candidate;
    } catch {
      // try the next one
    }
  }
  if (process.env.KUBELOOM_REQUIRE_KUBECTL === '1') throw new Error('KUBELOOM_REQUIRE_KUBECTL=1 but no kubectl runs: set KUBECTL, put kubectl on the PATH or run `npm run tools`');
  return undefined;
}

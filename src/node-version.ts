/**
 * The Node.js version kubeloom needs, checked when any kubeloom entry point is imported (each entry
 * imports this module first, so the check runs before undici or anything else that needs newer
 * built-ins), and by the CLI launcher before it loads anything.
 *
 * 22.19 is undici 8's own `engines.node`; on older releases undici fails while loading (on Node 20:
 * `TypeError: Cannot read properties of undefined (reading 'bind')`, from zstd support that zlib
 * lacks there), which says nothing about the cause.
 */
import { KubeloomError } from './apimachinery/errors.ts';

/** The oldest supported Node.js version, as `[major, minor]` (package.json `engines.node`). */
export const minimumNodeVersion: readonly [number, number] = [22, 19];

/** Thrown on import when Node.js is older than the supported minimum (package.json `engines.node`). */
export class UnsupportedNodeVersionError extends KubeloomError {
  /** The running version, e.g. `20.20.2`. */
  readonly version: string;
  constructor(version: string) {
    super(
      'ERR_UNSUPPORTED_NODE_VERSION',
      `kubeloom requires Node.js >= ${minimumNodeVersion.join('.')}, but this is Node.js ${version}. Install a current Node.js LTS release (https://nodejs.org).`,
    );
    this.version = version;
  }
}

/** Whether `version` (`major.minor.patch`, as `process.versions.node`) is at least {@link minimumNodeVersion}. */
export function isSupportedNodeVersion(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  const [wantMajor, wantMinor] = minimumNodeVersion;
  return major > wantMajor || (major === wantMajor && minor >= wantMinor);
}

/** Throws {@link UnsupportedNodeVersionError} unless `version` is supported. */
export function checkNodeVersion(version: string = process.versions.node): void {
  if (!isSupportedNodeVersion(version)) throw new UnsupportedNodeVersionError(version);
}

checkNodeVersion();

/**
 * kubeloom: Kubernetes client-go for TypeScript. The root entry point re-exports the most used
 * pieces; every package is also available on its own subpath (`kubeloom/tools/cache`, ...).
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import './node-version.ts';
export * from './apimachinery/index.ts';
export * from './util/clock/index.ts';
export { kubeloomVersion } from './version.ts';

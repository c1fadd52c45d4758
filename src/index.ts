/**
 * kubeloom: Kubernetes client-go for TypeScript. The root entry point re-exports the most used
 * pieces; every package is also available on its own subpath (`kubeloom/tools/cache`, ...).
 */
export * from './apimachinery/index.ts';
export * from './util/clock/index.ts';
export { kubeloomVersion } from './version.ts';

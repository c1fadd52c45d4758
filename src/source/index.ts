/**
 * kubeloom/source: where a controller's events come from (controller-runtime pkg/source).
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export { channelSource, dynamicKindSource, kindSource, requestQueue } from './source.ts';
export type { ControllerQueue, Source } from './source.ts';

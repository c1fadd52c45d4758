/**
 * kubeloom/tools/portforward: forward local ports to a pod's ports (client-go tools/portforward).
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../../node-version.ts';
export * from './portforward.ts';
export { UpgradeFailureError } from '../../rest/websocket.ts';
export type { HeartbeatOptions } from '../../util/httpstream/heartbeat.ts';

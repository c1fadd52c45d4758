/**
 * kubeloom/tools/remotecommand: exec and attach into containers over the API server's WebSocket
 * channel protocols (client-go tools/remotecommand).
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../../node-version.ts';
export * from './constants.ts';
export * from './errors.ts';
export * from './resize.ts';
export * from './remotecommand.ts';
export { StreamClosedError } from '../../util/httpstream/wsstream.ts';
export { UpgradeFailureError } from '../../rest/websocket.ts';
export * from './cp.ts';

/**
 * kubeloom/tools/remotecommand: exec and attach into containers over the API server's WebSocket
 * channel protocols (client-go tools/remotecommand).
 */
export * from './constants.ts';
export * from './errors.ts';
export * from './resize.ts';
export * from './remotecommand.ts';
export { StreamClosedError } from '../../util/httpstream/wsstream.ts';
export { UpgradeFailureError } from '../../rest/websocket.ts';
export * from './cp.ts';

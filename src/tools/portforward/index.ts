/**
 * kubeloom/tools/portforward: forward local ports to a pod's ports (client-go tools/portforward).
 */
export * from './portforward.ts';
export { UpgradeFailureError } from '../../rest/websocket.ts';

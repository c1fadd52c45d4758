/**
 * Names and channel numbers of the remote command stream protocols (apimachinery
 * `pkg/util/remotecommand/constants.go`, core/v1 `StreamType*`).
 */

/** WebSocket subprotocol with the close signal; served by kube-apiserver since 1.30 (and kubelets' translators). */
export const StreamProtocolV5Name = 'v5.channel.k8s.io';
/** The previous WebSocket channel protocol: JSON Status on the error channel, resize channel, no half-close. */
export const StreamProtocolV4Name = 'v4.channel.k8s.io';

/** The protocols a client offers by default, most preferred first. */
export const defaultStreamProtocols: readonly string[] = [StreamProtocolV5Name, StreamProtocolV4Name];

/** Channel numbers of the remote command protocols. */
export const StreamChannel = {
  /** Standard input, client to container. */
  stdin: 0,
  /** Standard output, container to client. */
  stdout: 1,
  /** Standard error, container to client (not used with a terminal). */
  stderr: 2,
  /** The error channel: one JSON metav1.Status describing how the command ended (v4, v5). */
  error: 3,
  /** Terminal resize events, one JSON `{"Width":w,"Height":h}` per message. */
  resize: 4,
} as const;

/** Status reason for a command that exited with a non-zero code (NonZeroExitCodeReason). */
export const NonZeroExitCodeReason = 'NonZeroExitCode';
/** Status cause type carrying the exit code as its message (ExitCodeCauseType). */
export const ExitCodeCauseType = 'ExitCode';

/**
 * kubeloom/rest: the REST client (client-go's rest package): configuration, request building,
 * the pooled HTTP client with auth, rate limiting and retries, errors and watch decoding.
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export * from './config.ts';
export * from './request.ts';
export * from './errors.ts';
export * from './list-decoder.ts';
export * from './content-negotiation.ts';
export * from './protobuf-list-decoder.ts';
export * from './protobuf-watch-decoder.ts';
export { decodeProtobuf, ProtobufDecodeError, protobufContentType, type FieldsV1Interner, type ProtobufDecodeOptions } from '../runtime/protobuf/decode.ts';
export { canEncodeProtobuf, encodeProtobuf, encodeProtobufWatchEvent, ProtobufEncodeError } from '../runtime/protobuf/encode.ts';
export { ManagedFieldsInterner, defaultInternerMaxBytes } from './managed-fields-interner.ts';
export * from './client.ts';
export * from './reachability.ts';
export * from './token-bucket.ts';
export * from './token-file.ts';
export * from './transport.ts';
export * from './warnings.ts';
export * from './watch-decoder.ts';
export * from './watch-event-iterator.ts';
export * from './websocket.ts';

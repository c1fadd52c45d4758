/**
 * kubeloom/webhook/conversion: CRD conversion webhooks with hub-and-spoke converters, as
 * controller-runtime's pkg/webhook/conversion serves them.
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../../node-version.ts';
export { ConversionError, ConversionWebhook } from './conversion.ts';
export type { ConversionRequest, ConversionResponse, ConversionResult, ConversionWebhookOptions, Convertible, KindConversion } from './conversion.ts';

/** kubeloom/util/retry: retryOnConflict and onError with client-go's DefaultRetry/DefaultBackoff. */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../../node-version.ts';
export * from './retry.ts';

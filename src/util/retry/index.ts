/** kubeloom/util/retry: retryOnConflict and onError with client-go's DefaultRetry/DefaultBackoff. */
export * from './retry.ts';

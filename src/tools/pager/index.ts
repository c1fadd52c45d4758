/** kubeloom/tools/pager: paginated listing with client-go's expired-token fallback. */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../../node-version.ts';
export * from './list-pager.ts';

/** kubeloom/tools/pager: paginated listing with client-go's expired-token fallback. */
export * from './list-pager.ts';

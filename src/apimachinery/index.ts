export * from './errors.ts';
export * from './watch.ts';
export * from './object.ts';
export * from './meta.ts';

/** kubeloom/informers: typed, dynamic and metadata-only shared informer factories. */
export * from './factory.ts';

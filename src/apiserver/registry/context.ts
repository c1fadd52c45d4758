/**
 * What registry code that reads and writes stored objects works with: the storage, the served resources,
 * the open watches (a CRD's deletion ends its watches) and the clock. The handlers' RequestScope is one;
 * the controllers running inside the server pass theirs.
 */
import type { ResourceRegistry } from '../resources.ts';
import type { Storage } from '../storage.ts';
import type { WatchStream } from '../watch-stream.ts';

/** The server state registry strategies act on. */
export interface RegistryContext {
  readonly storage: Storage;
  readonly registry: ResourceRegistry;
  /** Every open watch stream. */
  readonly watches: Set<WatchStream>;
  /** The clock's current time as a metav1.Time string. */
  now(): string;
}

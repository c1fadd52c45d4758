/**
 * A lock on a coordination.k8s.io/v1 Lease (client-go resourcelock.LeaseLock): the record lives in the
 * Lease's spec, and updates carry the Lease's resourceVersion so a concurrent writer gets a Conflict.
 */
import type { Lease, LeaseSpec } from '../../../api/coordination/v1.ts';
import { KubeloomError } from '../../../apimachinery/errors.ts';
import type { ListOptions, RequestOptions } from '../../../apimachinery/options.ts';
import type { Watch } from '../../../apimachinery/watch.ts';
import { formatMicroTime, parseTime } from '../../events/meta-time.ts';
import {
  LockWatchUnsupportedError,
  rawRecord,
  type LeaderElectionRecord,
  type LockEventRecorder,
  type LockRequestOptions,
  type ObservedLeaderElectionRecord,
  type ResourceLock,
  type ResourceLockConfig,
} from './interface.ts';

/**
 * The Lease operations a {@link LeaseLock} needs, already scoped to the lock's namespace. The typed
 * clientset's `coordinationV1().leases(namespace)` satisfies it; every call rejects with a StatusError
 * on failure.
 */
export interface LeaseClient {
  /** Reads the Lease. */
  get(name: string, options?: RequestOptions): Promise<Lease>;
  /** Creates the Lease. */
  create(lease: Lease, options?: RequestOptions): Promise<Lease>;
  /** Updates the Lease (optimistic concurrency on its resourceVersion). */
  update(lease: Lease, options?: RequestOptions): Promise<Lease>;
  /** Watches Leases (optional: without it {@link LeaseLock.watch} is unsupported). */
  watch?(options: ListOptions): Promise<Watch<Lease>>;
}

/** Options of a {@link LeaseLock}. */
export interface LeaseLockOptions extends ResourceLockConfig {
  /** Lease client for `namespace`. */
  client: LeaseClient;
  /** The Lease's namespace. */
  namespace: string;
  /** The Lease's name. */
  name: string;
  /** Labels set on the Lease when it is created and re-applied on every update (other labels are kept). */
  labels?: Record<string, string>;
}

/** `update` was called before the Lease was read or created through this lock. */
export class LeaseNotInitializedError extends KubeloomError {
  constructor() {
    super('ERR_LEASE_NOT_INITIALIZED', 'lease not initialized, call get or create first');
  }
}

/** The watch of a {@link LeaseLock} ended with an ERROR event (e.g. 410 Expired); the watcher starts anew. */
export class LeaseWatchError extends KubeloomError {
  /** The Status code the server sent. */
  readonly status: number | undefined;
  constructor(message: string, status: number | undefined) {
    super('ERR_LEASE_WATCH', `lease watch failed: ${message}`);
    this.status = status;
  }
}

/** Converts a record to a Lease spec (LeaderElectionRecordToLeaseSpec). */
export function leaderElectionRecordToLeaseSpec(record: LeaderElectionRecord): LeaseSpec {
  const spec: LeaseSpec = {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    leaseTransitions: record.leaderTransitions,
  };
  if (record.acquireTime !== undefined) spec.acquireTime = formatMicroTime(record.acquireTime);
  if (record.renewTime !== undefined) spec.renewTime = formatMicroTime(record.renewTime);
  return spec;
}

/** Converts a Lease spec to a record (LeaseSpecToLeaderElectionRecord); absent fields become ''/0/undefined. */
export function leaseSpecToLeaderElectionRecord(spec: LeaseSpec | undefined): LeaderElectionRecord {
  const record: LeaderElectionRecord = {
    holderIdentity: spec?.holderIdentity ?? '',
    leaseDurationSeconds: spec?.leaseDurationSeconds ?? 0,
    leaderTransitions: spec?.leaseTransitions ?? 0,
  };
  const acquire = parseTime(spec?.acquireTime);
  if (acquire !== undefined) record.acquireTime = acquire;
  const renew = parseTime(spec?.renewTime);
  if (renew !== undefined) record.renewTime = renew;
  return record;
}

/**
 * A {@link ResourceLock} backed by a Lease.
 *
 * @example
 * const lock = new LeaseLock({
 *   client: clientset.coordinationV1().leases('kube-system'),
 *   namespace: 'kube-system',
 *   name: 'my-controller',
 *   identity: `${os.hostname()}_${randomUUID()}`,
 * });
 */
export class LeaseLock implements ResourceLock {
  readonly #client: LeaseClient;
  readonly #namespace: string;
  readonly #name: string;
  readonly #identity: string;
  readonly #recorder: LockEventRecorder | undefined;
  readonly #labels: Record<string, string> | undefined;
  /** The Lease as last read or written: its resourceVersion guards the next update. */
  #lease: Lease | undefined;

  constructor(options: LeaseLockOptions) {
    this.#client = options.client;
    this.#namespace = options.namespace;
    this.#name = options.name;
    this.#identity = options.identity;
    this.#recorder = options.eventRecorder;
    this.#labels = options.labels;
  }

  async get(options: LockRequestOptions = {}): Promise<ObservedLeaderElectionRecord> {
    const lease = await this.#client.get(this.#name, requestOptions(options));
    this.#lease = lease;
    const record = leaseSpecToLeaderElectionRecord(lease.spec);
    return { record, raw: rawRecord(record) };
  }

  async create(record: LeaderElectionRecord, options: LockRequestOptions = {}): Promise<void> {
    const lease: Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.#name, namespace: this.#namespace },
      spec: leaderElectionRecordToLeaseSpec(record),
    };
    if (this.#labels !== undefined) lease.metadata!.labels = { ...this.#labels };
    this.#lease = await this.#client.create(lease, requestOptions(options));
  }

  async update(record: LeaderElectionRecord, options: LockRequestOptions = {}): Promise<void> {
    if (this.#lease === undefined) throw new LeaseNotInitializedError();
    const lease: Lease = { ...this.#lease, spec: leaderElectionRecordToLeaseSpec(record) };
    if (this.#labels !== undefined) {
      lease.metadata = { ...lease.metadata, labels: { ...lease.metadata?.labels, ...this.#labels } };
    }
    this.#lease = await this.#client.update(lease, requestOptions(options));
  }

  recordEvent(message: string): void {
    if (this.#recorder === undefined) return;
    const metadata = this.#lease?.metadata ?? { name: this.#name, namespace: this.#namespace };
    const subject: Lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata };
    this.#recorder.eventf(subject, 'Normal', 'LeaderElection', `${this.#identity} ${message}`);
  }

  identity(): string {
    return this.#identity;
  }

  /**
   * Watches this one Lease (field selector on its name, from the current state): yields its record on
   * every ADDED/MODIFIED event, `undefined` on DELETED; ends when the stream ends, throws the Status of
   * an ERROR event. Does not touch the version `update` is conditional on: only `get` sets that.
   */
  async *watch(options: LockRequestOptions = {}): AsyncIterable<ObservedLeaderElectionRecord | undefined> {
    if (this.#client.watch === undefined) throw new LockWatchUnsupportedError(this.describe());
    const stream = await this.#client.watch({ fieldSelector: `metadata.name=${this.#name}`, ...requestOptions(options) });
    for await (const event of stream) {
      if (event.type === 'BOOKMARK') continue;
      if (event.type === 'ERROR') throw new LeaseWatchError(event.object.message ?? '', event.object.code);
      if (event.type === 'DELETED') {
        yield undefined;
        continue;
      }
      const record = leaseSpecToLeaderElectionRecord(event.object.spec);
      yield { record, raw: rawRecord(record) };
    }
  }

  describe(): string {
    return `${this.#namespace}/${this.#name}`;
  }
}

function requestOptions(options: LockRequestOptions): RequestOptions {
  return options.signal === undefined ? {} : { signal: options.signal };
}

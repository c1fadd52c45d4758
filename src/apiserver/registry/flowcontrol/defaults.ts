/**
 * Defaults of API Priority and Fairness objects (`pkg/apis/flowcontrol/v1/defaults.go`): a FlowSchema's
 * matchingPrecedence 1000; a limited priority level's 30 nominal concurrency shares, 0 lendable percent
 * and queuing of 64 queues, hand size 8, queue length limit 50; an exempt level's 0 shares and 0 lendable.
 */
import { isObject } from '../../object-meta.ts';

type Obj = Record<string, unknown>;

const zero = (v: unknown): boolean => v === undefined || v === null || v === 0;

/** SetDefaults_FlowSchemaSpec. */
export function flowSchemaDefaults(fs: Obj): void {
  if (!isObject(fs.spec)) return;
  if (zero(fs.spec.matchingPrecedence)) fs.spec.matchingPrecedence = 1000;
}

/** SetDefaults_LimitedPriorityLevelConfiguration, SetDefaults_QueuingConfiguration, SetDefaults_ExemptPriorityLevelConfiguration. */
export function priorityLevelConfigurationDefaults(plc: Obj): void {
  if (!isObject(plc.spec)) return;
  const { limited, exempt } = plc.spec;
  if (isObject(limited)) {
    if (zero(limited.nominalConcurrencyShares)) limited.nominalConcurrencyShares = 30;
    limited.lendablePercent ??= 0;
    const response = isObject(limited.limitResponse) ? limited.limitResponse : undefined;
    if (response !== undefined && isObject(response.queuing)) {
      const q = response.queuing;
      if (zero(q.handSize)) q.handSize = 8;
      if (zero(q.queues)) q.queues = 64;
      if (zero(q.queueLengthLimit)) q.queueLengthLimit = 50;
    }
  }
  if (isObject(exempt)) {
    exempt.nominalConcurrencyShares ??= 0;
    exempt.lendablePercent ??= 0;
  }
}

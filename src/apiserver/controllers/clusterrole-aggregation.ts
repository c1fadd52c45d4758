/**
 * The ClusterRole aggregation controller of kube-controller-manager
 * (pkg/controller/clusterroleaggregation): a ClusterRole with an aggregationRule gets, as its rules,
 * the union of the rules of every other ClusterRole its selectors match (roles in name order, each
 * rule once), rewritten whenever a ClusterRole changes. Writes are recorded in managedFields under the
 * controller's name. It runs inside the server, right after each ClusterRole write, and stops with it.
 */
import type { ClusterRole, PolicyRule } from '../../api/rbac/v1.ts';
import { labelSelectorAsSelector } from '../../apimachinery/labels.ts';
import { trackUpdate } from '../patch/index.ts';
import type { Storage } from '../storage.ts';

const store = 'clusterroles.rbac.authorization.k8s.io';
/** The field manager of the controller's writes. */
export const aggregationManager = 'clusterrole-aggregation-controller';

/** Semantic equality of rules: key order and absent vs empty lists do not matter. */
function sameRule(a: PolicyRule, b: PolicyRule): boolean {
  const norm = (r: PolicyRule): string => JSON.stringify([r.verbs, r.apiGroups ?? [], r.resources ?? [], r.resourceNames ?? [], r.nonResourceURLs ?? []]);
  return norm(a) === norm(b);
}

/** The rules an aggregated ClusterRole should have, from the current ClusterRoles. */
export function aggregateRules(role: ClusterRole, all: readonly ClusterRole[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const sorted = [...all].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  for (const selector of role.aggregationRule?.clusterRoleSelectors ?? []) {
    const s = labelSelectorAsSelector(selector);
    for (const other of sorted) {
      if (other.metadata?.name === role.metadata?.name) continue;
      if (!s.matches(other.metadata?.labels ?? {})) continue;
      for (const rule of other.rules ?? []) if (!out.some((r) => sameRule(r, rule))) out.push(rule);
    }
  }
  return out;
}

/** Keeps aggregated ClusterRoles' rules in step with the roles they select. */
export class ClusterRoleAggregationController {
  readonly #storage: Storage;
  readonly #now: () => string;
  readonly #unsubscribe: () => void;
  #scheduled = false;
  #stopped = false;

  constructor(storage: Storage, now: () => string) {
    this.#storage = storage;
    this.#now = now;
    this.#unsubscribe = storage.subscribe(store, () => this.#schedule());
    this.#schedule();
  }

  // Writes from inside a storage listener would nest; sync once the current write is done.
  #schedule(): void {
    if (this.#scheduled || this.#stopped) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      if (!this.#stopped) this.sync();
    });
  }

  /** Recomputes every aggregated ClusterRole now; writes those whose rules changed. */
  sync(): void {
    const roles = this.#storage.listAt(store, this.#storage.revision).map((s) => s.obj as ClusterRole);
    for (const role of roles) {
      if (role.aggregationRule === undefined || role.aggregationRule === null) continue;
      const rules = aggregateRules(role, roles);
      const current = role.rules ?? [];
      if (current.length === rules.length && current.every((r, i) => sameRule(r, rules[i]!))) continue;
      const name = role.metadata!.name!;
      const existing = this.#storage.get(store, name);
      if (existing === undefined) continue;
      const next = trackUpdate(existing.obj, { ...structuredClone(existing.obj), rules: structuredClone(rules) }, { manager: aggregationManager, now: this.#now(), apiVersion: 'rbac.authorization.k8s.io/v1' });
      this.#storage.write(store, name, 'MODIFIED', next);
    }
  }

  /** Stops reacting to ClusterRole changes. */
  stop(): void {
    this.#stopped = true;
    this.#unsubscribe();
  }
}

/**
 * RBAC PolicyRules as sets of permissions: normalising rules into atoms (one API group, one resource
 * or `resource/subresource`, one verb, optionally one set of resourceNames), compacting atoms back
 * into the fewest rules that grant exactly them, and comparing two rule sets.
 *
 * Upstream has the pieces in several places: kubernetes/pkg/apis/rbac/v1/evaluation_helpers.go
 * (what a rule grants), pkg/registry/rbac/validation/policy_comparator.go (Covers: whether one rule
 * set grants everything another does, which kubeloom's {@link diffRules} reports both ways), and
 * liggitt/audit2rbac's pkg/ (compacting the rules a recorded identity used). Compaction here merges
 * only where the result grants nothing more than its atoms: resources sharing one group and one verb
 * set become one rule, then rules with identical resources and verbs across groups share a rule
 * (a rule grants the cross product of its groups, resources and verbs, so both merges are exact).
 * Rules are written in a fixed order (groups, then resources, then verbs, each sorted), so a file
 * generated twice from the same requests is byte-identical.
 */
import type { PolicyRule } from '../api/rbac/v1.ts';
import { KubeloomError } from '../apimachinery/errors.ts';
import { ruleAllows } from '../apiserver/authz/rbac/rules.ts';

/** A policy file or rule set could not be read or is not what was expected. */
export class RbacPolicyError extends KubeloomError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_RBAC_POLICY', message, options);
  }
}

/**
 * One permission: a verb on one resource (or `resource/subresource`) of one API group, for every
 * name (`resourceNames` empty) or only the names listed (sorted).
 */
export interface RuleAtom {
  /** The API group ('' for the core group). */
  readonly apiGroup: string;
  /** `pods`, or `pods/status` for a subresource. */
  readonly resource: string;
  /** The verb (`get`, `list`, `watch`, `create`, …). */
  readonly verb: string;
  /** Sorted; empty: every name. */
  readonly resourceNames: readonly string[];
}

/** A non-resource permission: a verb on one URL (e.g. `get` on `/healthz`). */
export interface NonResourceAtom {
  /** The verb (`get`, `post`, …). */
  readonly verb: string;
  /** The URL path, possibly ending in `*` (a prefix). */
  readonly url: string;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const sortedUnique = (xs: readonly string[]): string[] => [...new Set(xs)].sort(compare);

/** The atom's identity, for sets and maps. */
export function atomKey(a: RuleAtom): string {
  return JSON.stringify([a.apiGroup, a.resource, a.verb, a.resourceNames]);
}

/** The atom as a sentence fragment: `list pods`, `update apps/deployments/status`, `get leases "x"`. */
export function describeAtom(a: RuleAtom): string {
  const what = a.apiGroup === '' ? a.resource : `${a.apiGroup}/${a.resource}`;
  return `${a.verb} ${what}${a.resourceNames.length === 0 ? '' : ` ${a.resourceNames.map((n) => JSON.stringify(n)).join(',')}`}`;
}

/**
 * The resource atoms a set of rules grants, wildcards kept as the literal `*` (so a `*` verb is one
 * atom with verb `*`). Non-resource rules are left out ({@link nonResourceAtoms} has them).
 */
export function ruleAtoms(rules: readonly PolicyRule[]): RuleAtom[] {
  const out = new Map<string, RuleAtom>();
  for (const rule of rules) {
    const names = sortedUnique(rule.resourceNames ?? []);
    for (const apiGroup of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        for (const verb of rule.verbs) {
          const atom: RuleAtom = { apiGroup, resource, verb, resourceNames: names };
          out.set(atomKey(atom), atom);
        }
      }
    }
  }
  return [...out.values()];
}

/** The non-resource atoms of a set of rules. */
export function nonResourceAtoms(rules: readonly PolicyRule[]): NonResourceAtom[] {
  const out = new Map<string, NonResourceAtom>();
  for (const rule of rules) for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.set(`${verb} ${url}`, { verb, url });
  return [...out.values()];
}

/** Orders rules deterministically: by groups, then resources, then verbs, then names and URLs. */
export function sortRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const key = (r: PolicyRule): string =>
    JSON.stringify([(r.nonResourceURLs ?? []).length > 0 ? 1 : 0, r.apiGroups ?? [], r.resources ?? [], r.verbs, r.resourceNames ?? [], r.nonResourceURLs ?? []]);
  return [...rules].sort((a, b) => compare(key(a), key(b)));
}

/**
 * The fewest rules that grant exactly the given atoms (and non-resource atoms), with every list sorted
 * and the rules in {@link sortRules} order. Nothing is widened: no wildcard is introduced and no rule
 * grants a combination that was not asked for.
 */
export function compactRules(atoms: readonly RuleAtom[], nonResource: readonly NonResourceAtom[] = []): PolicyRule[] {
  // (group, resource, names) → verbs
  const verbsOf = new Map<string, { apiGroup: string; resource: string; names: readonly string[]; verbs: Set<string> }>();
  for (const a of atoms) {
    const k = JSON.stringify([a.apiGroup, a.resource, a.resourceNames]);
    let e = verbsOf.get(k);
    if (e === undefined) verbsOf.set(k, (e = { apiGroup: a.apiGroup, resource: a.resource, names: sortedUnique(a.resourceNames), verbs: new Set() }));
    e.verbs.add(a.verb);
  }
  // (group, verbs, names) → resources
  const byGroup = new Map<string, { apiGroup: string; verbs: string[]; names: readonly string[]; resources: Set<string> }>();
  for (const e of verbsOf.values()) {
    const verbs = sortedUnique([...e.verbs]);
    const k = JSON.stringify([e.apiGroup, verbs, e.names]);
    let g = byGroup.get(k);
    if (g === undefined) byGroup.set(k, (g = { apiGroup: e.apiGroup, verbs, names: e.names, resources: new Set() }));
    g.resources.add(e.resource);
  }
  // (resources, verbs, names) → groups
  const byShape = new Map<string, { resources: string[]; verbs: string[]; names: readonly string[]; groups: Set<string> }>();
  for (const g of byGroup.values()) {
    const resources = sortedUnique([...g.resources]);
    const k = JSON.stringify([resources, g.verbs, g.names]);
    let s = byShape.get(k);
    if (s === undefined) byShape.set(k, (s = { resources, verbs: g.verbs, names: g.names, groups: new Set() }));
    s.groups.add(g.apiGroup);
  }
  const rules: PolicyRule[] = [...byShape.values()].map((s) => ({
    apiGroups: sortedUnique([...s.groups]),
    resources: s.resources,
    ...(s.names.length > 0 ? { resourceNames: [...s.names] } : {}),
    verbs: s.verbs,
  }));
  const urlsByVerbs = new Map<string, { verbs: string[]; urls: Set<string> }>();
  const verbsByUrl = new Map<string, Set<string>>();
  for (const n of nonResource) {
    let v = verbsByUrl.get(n.url);
    if (v === undefined) verbsByUrl.set(n.url, (v = new Set()));
    v.add(n.verb);
  }
  for (const [url, verbSet] of verbsByUrl) {
    const verbs = sortedUnique([...verbSet]);
    const k = JSON.stringify(verbs);
    let e = urlsByVerbs.get(k);
    if (e === undefined) urlsByVerbs.set(k, (e = { verbs, urls: new Set() }));
    e.urls.add(url);
  }
  for (const e of urlsByVerbs.values()) rules.push({ nonResourceURLs: sortedUnique([...e.urls]), verbs: e.verbs });
  return sortRules(rules);
}

/**
 * Normalises a rule set: the same permissions, compacted and sorted ({@link compactRules} over
 * {@link ruleAtoms}). Wildcards stay literal.
 */
export function normalizeRules(rules: readonly PolicyRule[]): PolicyRule[] {
  return compactRules(ruleAtoms(rules), nonResourceAtoms(rules));
}

/** Merges rule sets into one normalised set. */
export function mergeRules(...sets: readonly (readonly PolicyRule[])[]): PolicyRule[] {
  return normalizeRules(sets.flat());
}

/** What {@link diffRules} found. */
export interface RulesDiff {
  /** Permissions used (learned) that the granted rules do not allow: the operator would be refused. */
  readonly missing: RuleAtom[];
  /** Permissions granted (declared) that nothing used: more privilege than needed. */
  readonly unused: RuleAtom[];
  /** Non-resource permissions used but not granted. */
  readonly missingNonResource: NonResourceAtom[];
  /** Non-resource permissions granted but unused. */
  readonly unusedNonResource: NonResourceAtom[];
}

const byAtom = (a: RuleAtom, b: RuleAtom): number => compare(`${a.apiGroup}\0${a.resource}\0${a.verb}\0${a.resourceNames.join(',')}`, `${b.apiGroup}\0${b.resource}\0${b.verb}\0${b.resourceNames.join(',')}`);

// Whether some rule grants the atom, by RBAC's own matching (a `*` or a `*/sub` grant covers it). An
// atom restricted to names is covered when every one of its names is allowed.
function granted(rules: readonly PolicyRule[], a: RuleAtom): boolean {
  const slash = a.resource.indexOf('/');
  const base = { verb: a.verb, resourceRequest: true, path: '', apiGroup: a.apiGroup, resource: slash < 0 ? a.resource : a.resource.slice(0, slash), subresource: slash < 0 ? '' : a.resource.slice(slash + 1) };
  // An atom for every name is granted only by a rule for every name: ruleAllows with the name '' checks that.
  const names = a.resourceNames.length === 0 ? [''] : a.resourceNames;
  return names.every((name) => rules.some((r) => (r.resources ?? []).length > 0 && ruleAllows({ ...base, name }, r)));
}

/**
 * Compares what is granted with what is used. A used permission is missing when no granted rule
 * allows it (wildcards in the granted rules count, as RBAC matches them); a granted permission is
 * unused when no used permission is exactly it — so a granted wildcard is always reported, since the
 * used set never needs one.
 */
export function diffRules(grantedRules: readonly PolicyRule[], usedRules: readonly PolicyRule[]): RulesDiff {
  const used = ruleAtoms(usedRules);
  const usedKeys = new Set(used.map(atomKey));
  const grantedAtoms = ruleAtoms(grantedRules);
  const grantedUrls = nonResourceAtoms(grantedRules);
  const usedUrls = nonResourceAtoms(usedRules);
  const urlGranted = (n: NonResourceAtom): boolean => grantedRules.some((r) => ruleAllows({ verb: n.verb, resourceRequest: false, path: n.url, apiGroup: '', resource: '', subresource: '', name: '' }, r));
  return {
    missing: used.filter((a) => !granted(grantedRules, a)).sort(byAtom),
    unused: grantedAtoms.filter((a) => !usedKeys.has(atomKey(a))).sort(byAtom),
    missingNonResource: usedUrls.filter((n) => !urlGranted(n)),
    unusedNonResource: grantedUrls.filter((n) => !usedUrls.some((u) => u.verb === n.verb && u.url === n.url)),
  };
}

/** Whether a diff is empty. */
export function rulesAgree(d: RulesDiff): boolean {
  return d.missing.length === 0 && d.unused.length === 0 && d.missingNonResource.length === 0 && d.unusedNonResource.length === 0;
}

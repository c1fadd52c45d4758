/**
 * Cost limits of CEL rules, in the spirit of apiextensions-apiserver's: an estimate when the CRD is written
 * (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go: StaticEstimatedCostLimit per
 * rule, StaticEstimatedCRDCostLimit per schema, list, map and string sizes bounded by maxItems, maxProperties and
 * maxLength or else by the request size limit) and a meter at run time (pkg/apiserver/schema/cel/compilation.go:
 * PerCallLimit per evaluation, RuntimeCELCostBudget per object) that stops a runaway evaluation.
 *
 * The units differ from cel-go's: the estimate charges one per AST node evaluation, comprehensions their body
 * times the largest range, string functions a tenth of the string length; the meter charges one per evaluated
 * AST node. Both are of the same order as upstream's for the rules people write.
 */
import { additionalOf, itemsOf, type JSONSchemaProps } from '../schema/json-schema-props.ts';

/** Largest estimated cost of one rule (StaticEstimatedCostLimit). */
export const staticEstimatedCostLimit = 10_000_000;
/** Largest estimated cost of all rules of one schema (StaticEstimatedCRDCostLimit). */
export const staticEstimatedCrdCostLimit = 100_000_000;
/** Largest actual cost of one evaluation (PerCallLimit). */
export const perCallLimit = 1_000_000;
/** Largest actual cost of all evaluations for one object (RuntimeCELCostBudget). */
export const runtimeCelCostBudget = 10_000_000;
// kube-apiserver's request size limit, which bounds unbounded lists, maps and strings.
const maxRequestSizeBytes = 3 * 1024 * 1024;

/** getCostErrorMessage: how far over the budget a cost is. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const f = cost / limit;
  const factor = f > 100 ? 'more than 100x' : f < 1.5 ? `${f.toFixed(6)}x` : `${f.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

// The smallest JSON encoding of a value of the schema, for bounding unbounded collections.
function minSize(s: JSONSchemaProps | undefined): number {
  switch (s?.type) {
    case 'string':
      return 2;
    case 'boolean':
      return 4;
    case 'object':
    case 'array':
      return 2;
    default:
      return 1;
  }
}

/** The largest number of elements (or characters) a value of the schema can have. */
export function maxCardinality(s: JSONSchemaProps | undefined): number {
  if (s === undefined) return Math.floor((maxRequestSizeBytes - 2) / 2);
  if (s.type === 'array') return s.maxItems ?? Math.floor((maxRequestSizeBytes - 2) / (minSize(itemsOf(s)) + 1));
  if (s.type === 'object') return s.maxProperties ?? Math.floor((maxRequestSizeBytes - 2) / (minSize(additionalOf(s)) + 4));
  if (s.type === 'string') return s.maxLength ?? maxRequestSizeBytes;
  return 1;
}

/** An AST node of the CEL implementation, as far as the estimator reads it. */
export interface CelAstNode {
  op: string;
  args: unknown;
  readonly meta?: { alternate?: CelAstNode; macro?: { args?: unknown } };
}

function isNode(v: unknown): v is CelAstNode {
  return typeof v === 'object' && v !== null && 'op' in v && 'args' in v;
}

// Functions whose cost grows with the length of their string receiver.
const stringTraversal = new Set(['matches', 'contains', 'startsWith', 'endsWith', 'find', 'findAll', 'indexOf', 'lastIndexOf', 'replace', 'split', 'lowerAscii', 'upperAscii', 'trim']);
// Functions whose cost grows with the size of their list receiver.
const listTraversal = new Set(['sum', 'min', 'max', 'isSorted', 'indexOf', 'lastIndexOf', 'join']);

interface Estimate {
  cost: number;
  schema: JSONSchemaProps | undefined;
}

/**
 * The estimated cost of one evaluation of a parsed rule whose `self` is described by `selfSchema`
 * (and `oldSelf` likewise).
 */
export function estimateCost(ast: CelAstNode, selfSchema: JSONSchemaProps): number {
  return estimate(ast, new Map([['self', selfSchema], ['oldSelf', selfSchema]])).cost;
}

function estimate(n: CelAstNode, scope: Map<string, JSONSchemaProps | undefined>): Estimate {
  const alternate = n.meta?.alternate;
  if (alternate !== undefined && alternate !== n) {
    return alternate.op === 'comprehension' ? comprehension(alternate, scope) : estimate(alternate, scope);
  }
  switch (n.op) {
    case 'id':
      return { cost: 1, schema: typeof n.args === 'string' ? scope.get(n.args) : undefined };
    case '.':
    case '.?': {
      const [target, name] = n.args as [CelAstNode, string];
      const t = estimate(target, scope);
      return { cost: t.cost + 1, schema: t.schema?.properties?.[name] ?? (t.schema === undefined ? undefined : additionalOf(t.schema)) };
    }
    case '[]':
    case '[?]': {
      const [target, idx] = n.args as [CelAstNode, CelAstNode];
      const t = estimate(target, scope);
      const i = estimate(idx, scope);
      const s = t.schema === undefined ? undefined : (itemsOf(t.schema) ?? additionalOf(t.schema));
      return { cost: t.cost + i.cost + 1, schema: s };
    }
    case 'rcall': {
      const [fn, receiver, args] = n.args as [string, CelAstNode, CelAstNode[]];
      const r = estimate(receiver, scope);
      let cost = r.cost + 1 + args.reduce((sum, a) => sum + estimate(a, scope).cost, 0);
      if (r.schema?.type === 'string' && stringTraversal.has(fn)) cost += Math.ceil(maxCardinality(r.schema) * 0.1);
      if (r.schema?.type === 'array' && listTraversal.has(fn)) cost += maxCardinality(r.schema);
      return { cost, schema: undefined };
    }
    case 'comprehension':
      return comprehension(n, scope);
    default:
      return { cost: 1 + children(n).reduce((sum, c) => sum + estimate(c, scope).cost, 0), schema: undefined };
  }
}

function comprehension(n: CelAstNode, scope: Map<string, JSONSchemaProps | undefined>): Estimate {
  const a = n.args as { iterable: CelAstNode; iterVarName: string; init?: CelAstNode; step?: CelAstNode };
  const range = estimate(a.iterable, scope);
  const size = a.iterable.op === 'list' && Array.isArray(a.iterable.args) ? a.iterable.args.length : maxCardinality(range.schema);
  const element = range.schema === undefined ? undefined : range.schema.type === 'array' ? itemsOf(range.schema) : { type: 'string' };
  const inner = new Map(scope);
  inner.set(a.iterVarName, element);
  const step = isNode(a.step) ? estimate(a.step, inner).cost : 1;
  const init = isNode(a.init) ? estimate(a.init, scope).cost : 0;
  return { cost: range.cost + init + size * (step + 1), schema: undefined };
}

function children(n: CelAstNode): CelAstNode[] {
  const out: CelAstNode[] = [];
  const visit = (v: unknown): void => {
    if (isNode(v)) out.push(v);
    else if (Array.isArray(v)) v.forEach(visit);
  };
  visit(n.args);
  const macroArgs = n.meta?.macro?.args;
  if (macroArgs !== undefined) visit(macroArgs);
  return out;
}

/** Thrown inside an evaluation whose meter ran past its limit. */
export class CostLimitExceeded extends Error {
  constructor() {
    super('operation cancelled: actual cost limit exceeded');
    this.name = 'CostLimitExceeded';
  }
}

/** The running cost of evaluations: each evaluated AST node adds one; past `limit` the evaluation is stopped. */
export class CostMeter {
  cost = 0;
  limit = perCallLimit;

  /** Starts one evaluation allowed at most `limit`. */
  start(limit: number): void {
    this.cost = 0;
    this.limit = limit;
  }

  tick(): void {
    if (++this.cost > this.limit) throw new CostLimitExceeded();
  }
}

/**
 * Makes every AST node reachable from `root` charge `meter` when it is evaluated. The CEL implementation
 * evaluates through each node's `evaluate` property and replaces it with a specialised function on first
 * use; the property is redefined so that replacement stays behind the charge.
 */
export function meterAst(root: CelAstNode, meter: CostMeter): void {
  const seen = new Set<object>();
  const visit = (v: unknown): void => {
    if (typeof v !== 'object' || v === null || seen.has(v)) return;
    seen.add(v);
    if (Array.isArray(v)) {
      v.forEach(visit);
      return;
    }
    if (isNode(v)) {
      wrap(v, meter);
      visit(v.args);
      visit(v.meta?.alternate);
      const macro = v.meta?.macro as Record<string, unknown> | undefined;
      if (macro !== undefined) for (const x of Object.values(macro)) visit(x);
      return;
    }
    for (const x of Object.values(v)) visit(x);
  };
  visit(root);
}

type EvaluateFn = (this: unknown, ev: unknown, ast: unknown, ctx: unknown) => unknown;

function wrap(node: CelAstNode, meter: CostMeter): void {
  let inner = (node as unknown as { evaluate: EvaluateFn }).evaluate;
  const charged = function (this: unknown, ev: unknown, ast: unknown, ctx: unknown): unknown {
    meter.tick();
    return inner.call(this, ev, ast, ctx);
  };
  Object.defineProperty(node, 'evaluate', {
    configurable: true,
    get: () => charged,
    set: (fn: EvaluateFn) => {
      inner = fn;
    },
  });
}

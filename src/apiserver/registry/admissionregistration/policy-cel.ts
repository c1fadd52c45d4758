/**
 * The CEL environment of admission policies (`staging/src/k8s.io/apiserver/pkg/admission/plugin/cel`
 * and `.../policy/validating`): the variables `object`, `oldObject`, `request`, `params`,
 * `namespaceObject` and `variables` as dynamic values, the Kubernetes CEL libraries the CRD rules use
 * (../apiextensions/cel/library.ts), and compiled programs cached by expression.
 *
 * Differences: the variables are not typed from the resources' schemas (upstream type-checks policies
 * against them and reports `status.typeChecking`); `authorizer` is not offered; composited
 * `variables.<name>` are computed in order before the validations rather than lazily.
 */
import { Environment } from '@marcbachmann/cel-js';
import { registerKubernetesLibrary } from '../apiextensions/cel/library.ts';
import { dynValue } from '../apiextensions/cel/types.ts';

/** The variables an admission policy expression may use. */
export const policyVariables = ['object', 'oldObject', 'request', 'params', 'namespaceObject', 'variables'] as const;

/** A compiled expression, or why it does not compile. */
export type CompiledExpression = { readonly run: (vars: Record<string, unknown>) => unknown } | { readonly error: string };

let environment: Environment | undefined;

function env(): Environment {
  if (environment === undefined) {
    const e = new Environment({ homogeneousAggregateLiterals: false, limits: { maxAstNodes: 10_000, maxDepth: 250, maxListElements: 1_000, maxMapEntries: 1_000, maxCallArguments: 32 } });
    registerKubernetesLibrary(e);
    for (const v of policyVariables) e.registerVariable(v, 'dyn');
    environment = e;
  }
  return environment;
}

// Expressions are few and repeat on every request; the cache is bounded all the same.
const cache = new Map<string, CompiledExpression>();
const cacheLimit = 1000;

/** Compiles an expression (cached); a syntax or type error comes back as `error`, in cel-go's `ERROR: <input>:…` form. */
export function compileExpression(source: string): CompiledExpression {
  const hit = cache.get(source);
  if (hit !== undefined) return hit;
  let out: CompiledExpression;
  try {
    const program = env().parse(source);
    const checked = (program as unknown as { check(): { valid: boolean; error?: Error } }).check();
    out = checked.valid ? { run: (vars): unknown => program(vars) as unknown } : { error: `ERROR: <input>: ${checked.error?.message.split('\n')[0] ?? 'type check failed'}` };
  } catch (err) {
    out = { error: `ERROR: <input>: Syntax error: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]!}` };
  }
  if (cache.size >= cacheLimit) cache.delete(cache.keys().next().value!);
  cache.set(source, out);
  return out;
}

/** A JSON value (object, request, params) as CEL sees it: maps, int64 integers. */
export function celValue(v: unknown): unknown {
  return v === undefined ? null : dynValue(v);
}

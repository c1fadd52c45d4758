/**
 * CEL validation rules of custom resources (`x-kubernetes-validations`): rules on objects, scalars,
 * lists and maps, transition rules (`oldSelf`), rules that fail to compile, and the 422 causes as
 * kube-apiserver words them. In v1.24 the rules exist only behind the CustomResourceValidationExpressions
 * feature gate (alpha), so these goldens were recorded from a v1.24 kube-apiserver started with
 * `--feature-gates=CustomResourceValidationExpressions=true,ServerSideFieldValidation=true`
 * (`npm run fidelity:record -- --kubeconfig <that cluster> --only '^crd-cel/' --gates CustomResourceValidationExpressions`;
 * a recording without `--gates` skips them).
 *
 * Upstream: staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/ (compilation.go,
 * validation.go), pkg/apis/apiextensions/validation/validation.go.
 */
import type { Scenario, Step } from '../scenario.ts';

type Obj = Record<string, unknown>;

const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const gate = 'CustomResourceValidationExpressions';
const group = '{{r}}.fidelity.kubeloom.test';
const crdName = `ranges.${group}`;
const ranges = `/apis/${group}/v1/namespaces/{{ns}}/ranges`;

function spec(): Obj {
  return {
    type: 'object',
    'x-kubernetes-validations': [
      { rule: 'self.min <= self.max', message: 'min must not exceed max' },
      { rule: "!has(self.label) || self.label.startsWith('r-')" },
    ],
    properties: {
      min: { type: 'integer' },
      max: { type: 'integer' },
      label: { type: 'string', maxLength: 20 },
      id: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'id is immutable' }] },
      steps: { type: 'array', items: { type: 'integer' }, maxItems: 10, 'x-kubernetes-validations': [{ rule: 'self.all(x, x > 0)', message: 'steps must be positive' }, { rule: 'size(self) == 0 || self[0] == 1' }] },
      owners: { type: 'object', maxProperties: 5, additionalProperties: { type: 'string', maxLength: 10 }, 'x-kubernetes-validations': [{ rule: "self.all(k, k.startsWith('o'))", message: 'owner keys start with o' }] },
      level: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= oldSelf', message: 'level may only grow' }] },
    },
    required: ['min', 'max'],
  };
}

function rangeCrd(rules: Obj = spec(), name = crdName, plural = 'ranges'): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: plural.slice(0, -1), kind: 'Range', listKind: 'RangeList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: rules } } } }],
    },
  };
}

function range(name: string, s: Obj): Obj {
  return { apiVersion: `${group}/v1`, kind: 'Range', metadata: { name }, spec: s };
}

const install: Step[] = [
  { req: `POST ${crds}`, body: rangeCrd(), pick: ['spec.versions.0.schema'] },
  { req: `GET ${ranges}`, until: 200, keep: 'status' },
];

const cleanup: Step[] = [{ req: `DELETE ${crds}/${crdName}` }];

export const crdCel: Scenario[] = [
  {
    id: 'crd-cel/create-rules',
    gate,
    title: 'CEL rules on create: object, scalar, list and map rules, default messages and custom ones, several failures at once',
    steps: [
      ...install,
      { req: `POST ${ranges}`, body: range('ok', { min: 1, max: 2, label: 'r-a', steps: [1, 2], owners: { ops: 'x' }, id: 'a', level: 1 }), pick: ['spec'] },
      { req: `POST ${ranges}`, body: range('r1', { min: 3, max: 2 }) },
      { req: `POST ${ranges}`, body: range('r2', { min: 1, max: 2, label: 'x' }) },
      { req: `POST ${ranges}`, body: range('r3', { min: 1, max: 2, steps: [1, -2] }) },
      { req: `POST ${ranges}`, body: range('r4', { min: 1, max: 2, steps: [2] }) },
      { req: `POST ${ranges}`, body: range('r5', { min: 1, max: 2, owners: { bob: 'x' } }) },
      { req: `POST ${ranges}`, body: range('r6', { min: 5, max: 2, label: 'bad', steps: [0], owners: { x: 'y' } }) },
      { req: `POST ${ranges}`, body: range('r7', { min: 1 }) },
      { req: `POST ${ranges}`, body: range('r8', { min: 'one', max: 2 }) },
    ],
    cleanup,
  },
  {
    id: 'crd-cel/transition-rules',
    gate,
    title: 'CEL transition rules (oldSelf): checked on update only, when the field is present in both; other rules on update',
    steps: [
      ...install,
      { req: `POST ${ranges}`, body: range('t1', { min: 1, max: 2, id: 'first', level: 5 }), save: { rv: 'metadata.resourceVersion' }, keep: 'status' },
      { req: `PATCH ${ranges}/t1`, type: 'merge', body: { spec: { id: 'second' } } },
      { req: `PATCH ${ranges}/t1`, type: 'merge', body: { spec: { level: 3 } } },
      { req: `PUT ${ranges}/t1`, body: { ...range('t1', { min: 1, max: 2, id: 'other', level: 1 }), metadata: { name: 't1', resourceVersion: '{{rv}}' } } },
      { req: `PATCH ${ranges}/t1`, type: 'merge', body: { spec: { level: 9, max: 0 } } },
      { req: `PATCH ${ranges}/t1`, type: 'merge', body: { spec: { level: 9, label: 'r-ok' } }, pick: ['spec'] },
      { req: `PATCH ${ranges}/t1`, type: 'merge', body: { spec: { id: null } }, pick: ['spec'] },
      { req: `PATCH ${ranges}/t1`, type: 'merge', body: { spec: { id: 'late' } }, pick: ['spec'] },
      { req: `POST ${ranges}`, body: range('t2', { min: 1, max: 2, id: 'x', level: 0 }), pick: ['spec'] },
    ],
    cleanup,
  },
  {
    id: 'crd-cel/invalid-rules',
    gate,
    title: 'CRDs with CEL rules refused: syntax errors, unknown fields, non-boolean results, empty rules, transition rules where there is no old value',
    namespace: false,
    steps: [
      { req: `POST ${crds}`, body: rangeCrd({ type: 'object', properties: { a: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.a >' }] }, `ranges1.${group}`, 'ranges1') },
      { req: `POST ${crds}`, body: rangeCrd({ type: 'object', properties: { a: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.b > 0' }] }, `ranges2.${group}`, 'ranges2') },
      { req: `POST ${crds}`, body: rangeCrd({ type: 'object', properties: { a: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.a + 1' }] }, `ranges3.${group}`, 'ranges3') },
      { req: `POST ${crds}`, body: rangeCrd({ type: 'object', properties: { a: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: '' }] }, `ranges4.${group}`, 'ranges4') },
      { req: `POST ${crds}`, body: rangeCrd({ type: 'object', properties: { a: { type: 'array', items: { type: 'object', properties: { b: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } } } } } }, `ranges5.${group}`, 'ranges5') },
      { req: `POST ${crds}`, body: rangeCrd({ type: 'object', properties: { a: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: 'self.a.size() > 1', message: '' }] }, `ranges6.${group}`, 'ranges6') },
      { req: `POST ${crds}`, body: rangeCrd({ type: 'object', properties: { a: { type: 'array', items: { type: 'string' } } }, 'x-kubernetes-validations': [{ rule: "self.a.all(x, x.matches('^[a-z]+$'))" }] }, `ranges7.${group}`, 'ranges7') },
    ],
    cleanup: Array.from({ length: 7 }, (_, i): Step => ({ req: `DELETE ${crds}/ranges${i + 1}.${group}` })),
  },
];

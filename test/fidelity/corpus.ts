/**
 * The whole fidelity corpus, area by area. Scenario ids are unique; each has a golden file.
 */
import type { Scenario } from './scenario.ts';
import { apply } from './scenarios/apply.ts';
import { apps } from './scenarios/apps.ts';
import { batch } from './scenarios/batch.ts';
import { builtinApi } from './scenarios/builtin-api.ts';
import { core } from './scenarios/core.ts';
import { authz } from './scenarios/authz.ts';
import { crd } from './scenarios/crd.ts';
import { crdCel } from './scenarios/crd-cel.ts';
import { crdSchema } from './scenarios/crd-schema.ts';
import { deleteScenarios } from './scenarios/delete.ts';
import { discovery } from './scenarios/discovery.ts';
import { kubectlCreate } from './scenarios/kubectl-create.ts';
import { listWatch } from './scenarios/list-watch.ts';
import { namespaceScenarios } from './scenarios/namespace.ts';
import { patch } from './scenarios/patch.ts';
import { protocol } from './scenarios/protocol.ts';
import { rbacScenarios } from './scenarios/rbac.ts';
import { revisions } from './scenarios/revisions.ts';
import { tables } from './scenarios/tables.ts';
import { validation } from './scenarios/validation.ts';
import { validationDetails } from './scenarios/validation-details.ts';

/** Every scenario, in a stable order. */
export const corpus: readonly Scenario[] = [
  ...core,
  ...apps,
  ...batch,
  ...rbacScenarios,
  ...crd,
  ...crdSchema,
  ...crdCel,
  ...patch,
  ...apply,
  ...validation,
  ...deleteScenarios,
  ...listWatch,
  ...tables,
  ...kubectlCreate,
  ...discovery,
  ...protocol,
  ...authz,
  ...namespaceScenarios,
  ...revisions,
  ...validationDetails,
  ...builtinApi,
];

const seen = new Set<string>();
for (const s of corpus) {
  if (seen.has(s.id)) throw new Error(`duplicate fidelity scenario id ${s.id}`);
  if (!/^[a-z0-9-]+\/[a-z0-9-]+$/.test(s.id)) throw new Error(`fidelity scenario id must be <area>/<name> in lowercase: ${s.id}`);
  seen.add(s.id);
}

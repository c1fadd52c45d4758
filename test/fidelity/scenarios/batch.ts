/**
 * batch/v1: Jobs and CronJobs — every verb, defaults (generated selector and labels), validation,
 * immutability of a Job's template, suspension.
 */
import type { Scenario } from '../scenario.ts';
import { cronJob, job } from './objects.ts';

const jobs = '/apis/batch/v1/namespaces/{{ns}}/jobs';
const cronjobs = '/apis/batch/v1/namespaces/{{ns}}/cronjobs';

export const batch: Scenario[] = [
  {
    id: 'batch/job-create-defaults',
    title: 'Job: create answers defaults and the generated selector and template labels',
    steps: [{ req: `POST ${jobs}`, body: job('pi') }],
  },
  {
    id: 'batch/job-verbs',
    title: 'Job: get, list, suspend patch bumps generation, status, delete (Status answer, background)',
    steps: [
      { req: `POST ${jobs}`, body: job('pi'), keep: 'status' },
      { req: `GET ${jobs}`, pick: ['kind', 'items.*.metadata.name'] },
      { req: `PATCH ${jobs}/pi`, type: 'merge', body: { spec: { suspend: true } }, pick: ['metadata.generation', 'spec.suspend'] },
      { req: `PATCH ${jobs}/pi/status`, type: 'merge', body: { status: { active: 1 } }, pick: ['metadata.generation', 'status'] },
      { req: `DELETE ${jobs}/pi?propagationPolicy=Background` },
    ],
  },
  {
    id: 'batch/job-validation',
    title: 'Job validation: restartPolicy Always, missing template containers, negative backoffLimit',
    steps: [
      { req: `POST ${jobs}`, body: { ...job('a'), spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Always' } } } } },
      { req: `POST ${jobs}`, body: { ...job('b'), spec: { template: { spec: { containers: [], restartPolicy: 'Never' } } } } },
      { req: `POST ${jobs}`, body: job('c', { backoffLimit: -1 }) },
      { req: `POST ${jobs}`, body: { ...job('d'), spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } } } },
    ],
  },
  {
    id: 'batch/job-template-immutable',
    title: 'Job: spec.template is immutable, completions too',
    steps: [
      { req: `POST ${jobs}`, body: job('pi'), keep: 'status' },
      { req: `PATCH ${jobs}/pi`, type: 'strategic', body: { spec: { template: { spec: { containers: [{ name: 'app', image: 'busybox' }] } } } } },
      { req: `PATCH ${jobs}/pi`, type: 'merge', body: { spec: { completions: 3 } } },
    ],
  },
  {
    id: 'batch/cronjob-verbs',
    title: 'CronJob: create defaults, bad schedule, suspend, delete',
    steps: [
      { req: `POST ${cronjobs}`, body: cronJob('tick') },
      { req: `POST ${cronjobs}`, body: cronJob('bad', 'every minute') },
      { req: `PATCH ${cronjobs}/tick`, type: 'merge', body: { spec: { suspend: true } }, pick: ['metadata.generation', 'spec.suspend'] },
      { req: `GET ${cronjobs}`, pick: ['kind', 'items.*.metadata.name'] },
      { req: `DELETE ${cronjobs}/tick`, pick: ['kind', 'status', 'details'] },
    ],
  },
  {
    id: 'batch/kubectl-jobs',
    title: 'kubectl get jobs and cronjobs tables',
    steps: [
      { req: `POST ${jobs}`, body: job('pi'), keep: 'status' },
      { req: `POST ${cronjobs}`, body: cronJob('tick'), keep: 'status' },
      { kubectl: 'get jobs' },
      { kubectl: 'get cronjobs' },
      { kubectl: 'get jobs,cronjobs -o wide' },
    ],
  },
];

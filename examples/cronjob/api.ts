/**
 * The CronJob API of the kubebuilder book's tutorial (batch.tutorial.kubebuilder.io/v1): its types, the
 * CRD with its validation (what kubebuilder's markers generate), and the kind descriptor the manager,
 * client and builder take.
 */
import type { CustomResourceDefinition } from 'kubeloom/api/apiextensions/v1';
import type { JobTemplateSpec } from 'kubeloom/api/batch/v1';
import type { ObjectReference } from 'kubeloom/api/core/v1';
import type { ObjectMeta } from 'kubeloom/api/meta/v1';
import { defineCustomResource } from 'kubeloom/kubernetes';

/** How to treat concurrent executions of a Job. */
export type ConcurrencyPolicy = 'Allow' | 'Forbid' | 'Replace';

/** CronJobSpec: the desired state of a CronJob. */
export interface CronJobSpec {
  /** The schedule in Cron format. */
  schedule: string;
  /** Deadline in seconds for starting the job if it misses its scheduled time. */
  startingDeadlineSeconds?: number;
  /** How to treat concurrent executions: Allow (default), Forbid or Replace. */
  concurrencyPolicy?: ConcurrencyPolicy;
  /** Suspends subsequent executions; default false. */
  suspend?: boolean;
  /** The job that will be created when executing a CronJob. */
  jobTemplate: JobTemplateSpec;
  /** Successful finished jobs to retain (default 3). */
  successfulJobsHistoryLimit?: number;
  /** Failed finished jobs to retain (default 1). */
  failedJobsHistoryLimit?: number;
}

/** CronJobStatus: the observed state of a CronJob. */
export interface CronJobStatus {
  /** Pointers to currently running jobs. */
  active?: ObjectReference[];
  /** When the job was last successfully scheduled (RFC 3339). */
  lastScheduleTime?: string;
}

/** A CronJob of the tutorial. */
export interface CronJob {
  apiVersion?: 'batch.tutorial.kubebuilder.io/v1';
  kind?: 'CronJob';
  metadata?: ObjectMeta;
  spec?: CronJobSpec;
  status?: CronJobStatus;
}

/** The kind descriptor of CronJobs. */
export const cronJobs = defineCustomResource<CronJob>({ group: 'batch.tutorial.kubebuilder.io', version: 'v1', resource: 'cronjobs', kind: 'CronJob', namespaced: true, subresources: ['status'] });

/** The CRD, with the validation kubebuilder's markers put in it. */
export const cronJobCrd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'cronjobs.batch.tutorial.kubebuilder.io' },
  spec: {
    group: 'batch.tutorial.kubebuilder.io',
    names: { kind: 'CronJob', listKind: 'CronJobList', plural: 'cronjobs', singular: 'cronjob' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              apiVersion: { type: 'string' },
              kind: { type: 'string' },
              metadata: { type: 'object' },
              spec: {
                type: 'object',
                required: ['schedule', 'jobTemplate'],
                properties: {
                  schedule: { type: 'string', minLength: 0 },
                  startingDeadlineSeconds: { type: 'integer', format: 'int64', minimum: 0 },
                  concurrencyPolicy: { type: 'string', enum: ['Allow', 'Forbid', 'Replace'] },
                  suspend: { type: 'boolean' },
                  jobTemplate: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  successfulJobsHistoryLimit: { type: 'integer', format: 'int32', minimum: 0 },
                  failedJobsHistoryLimit: { type: 'integer', format: 'int32', minimum: 0 },
                },
              },
              status: {
                type: 'object',
                properties: {
                  active: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, 'x-kubernetes-list-type': 'atomic' },
                  lastScheduleTime: { type: 'string', format: 'date-time' },
                },
              },
            },
          },
        },
      },
    ],
  },
};

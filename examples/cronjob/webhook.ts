/**
 * The CronJob webhooks of the kubebuilder book's tutorial (internal/webhook/v1/cronjob_webhook.go),
 * built with kubeloom's webhook builder: the defaulter fills concurrencyPolicy (Allow), suspend (false),
 * successfulJobsHistoryLimit (3) and failedJobsHistoryLimit (1) when unset; the validator refuses, on
 * create and update, a name longer than 52 characters (a Job's name adds 11: DNS1035LabelMaxLength − 11)
 * and a schedule that does not parse as cron, as one Invalid error naming each field, as
 * apierrors.NewInvalid does. The tutorial parses with robfig/cron's ParseStandard; the example's own
 * parser (cron.ts) takes the same five fields and shorthands, not `@every` or `TZ=`, and its messages
 * are its own.
 */
// #region webhooks
import { fieldInvalid, fieldPath, newInvalid, type FieldError } from 'kubeloom/apimachinery';
import { webhookManagedBy, type WebhookRegistration } from 'kubeloom/builder';
import type { Manager } from 'kubeloom/manager';
import type { CustomDefaulter, CustomValidator } from 'kubeloom/webhook/admission';
import { cronJobs, type ConcurrencyPolicy, type CronJob } from './api.ts';
import { parseSchedule } from './cron.ts';

// validation.DNS1035LabelMaxLength (63) − 11: the controller appends `-<unix time>` to name its Jobs.
const maxNameLength = 63 - 11;

/** The defaults the webhook sets (CronJobCustomDefaulter's fields). */
export interface CronJobDefaults {
  /** Default concurrencyPolicy. */
  concurrencyPolicy: ConcurrencyPolicy;
  /** Default suspend. */
  suspend: boolean;
  /** Default successfulJobsHistoryLimit. */
  successfulJobsHistoryLimit: number;
  /** Default failedJobsHistoryLimit. */
  failedJobsHistoryLimit: number;
}

/** Sets the defaults of unset fields (CronJobCustomDefaulter.Default). */
export function cronJobDefaulter(d: CronJobDefaults): CustomDefaulter<CronJob> {
  return {
    default(cronJob) {
      const spec = cronJob.spec!;
      spec.concurrencyPolicy ??= d.concurrencyPolicy;
      spec.suspend ??= d.suspend;
      spec.successfulJobsHistoryLimit ??= d.successfulJobsHistoryLimit;
      spec.failedJobsHistoryLimit ??= d.failedJobsHistoryLimit;
    },
  };
}

/** Refuses long names and malformed schedules (CronJobCustomValidator); deletion is not validated. */
export const cronJobValidator: CustomValidator<CronJob> = {
  validateCreate: (cronJob) => validateCronJob(cronJob),
  validateUpdate: (_old, cronJob) => validateCronJob(cronJob),
};

function validateCronJob(cronJob: CronJob): void {
  const name = cronJob.metadata?.name ?? '';
  const errors: FieldError[] = [];
  if (name.length > maxNameLength) errors.push(fieldInvalid(fieldPath('metadata', 'name'), name, 'must be no more than 52 characters'));
  const schedule = cronJob.spec?.schedule ?? '';
  try {
    parseSchedule(schedule);
  } catch (err) {
    errors.push(fieldInvalid(fieldPath('spec', 'schedule'), schedule, (err as Error).message));
  }
  if (errors.length > 0) throw newInvalid({ group: 'batch.tutorial.kubebuilder.io', kind: 'CronJob' }, name, errors);
}

/** Registers both webhooks on the manager's webhook server (SetupCronJobWebhookWithManager). */
export function setupCronJobWebhookWithManager(mgr: Manager): WebhookRegistration {
  return webhookManagedBy(mgr)
    .for(cronJobs)
    .withDefaulter(cronJobDefaulter({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 }))
    .withValidator(cronJobValidator)
    .complete();
}
// #endregion

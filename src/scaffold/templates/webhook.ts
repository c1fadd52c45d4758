/**
 * The webhooks `kubeloom create api --webhook` and `--conversion` write (kubebuilder's
 * internal/webhook/<version>/<kind>_webhook.go and its test, and the conversion's hub/spoke
 * functions of api/<version>/<kind>_conversion.go).
 */
import { anchor } from '../anchors.ts';
import { versionSuffix, type KindNames } from '../names.ts';

/** src/webhook/<kind>-webhook.ts: defaulter and validator. */
export function webhookTs(k: KindNames): string {
  const descriptor = `${k.plural}${versionSuffix(k.version)}`;
  return `/**
 * The ${k.kind} admission webhooks: a defaulter (mutating webhook) and a validator (validating webhook),
 * served by the manager's webhook server at the builder's paths. \`npm run manifests\` writes their
 * Mutating/ValidatingWebhookConfiguration to config/webhook.
 */
import { webhookManagedBy, type WebhookRegistration } from 'kubeloom/builder';
import type { Manager } from 'kubeloom/manager';
import { ${descriptor}, type ${k.kind} } from '../api/${k.lower}/index.ts';

/** Fills unset fields (the mutating webhook). */
export function default${k.kind}(${k.camel}: ${k.kind}): void {
  ${k.camel}.spec ??= {};
  ${k.camel}.spec.message ??= 'hello';
}

/** Refuses invalid ${k.kind}s (the validating webhook, on create and update); a throw denies the request. */
export function validate${k.kind}(${k.camel}: ${k.kind}): void {
  const size = ${k.camel}.spec?.size ?? 1;
  if (size > 10) throw new Error(\`spec.size: Invalid value: \${size}: must be at most 10\`);
}

/** Registers the ${k.kind} webhooks on the manager's webhook server. */
export function setup${k.kind}Webhook(mgr: Manager): WebhookRegistration {
  return webhookManagedBy(mgr)
    .for(${descriptor})
    .withDefaulter({ default: (obj) => default${k.kind}(obj) })
    .withValidator({ validateCreate: (obj) => validate${k.kind}(obj), validateUpdate: (_old, obj) => validate${k.kind}(obj) })
    .complete();
}
`;
}

/** src/webhook/<kind>-webhook.test.ts. */
export function webhookTestTs(k: KindNames): string {
  return `import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ${k.kind} } from '../api/${k.lower}/index.ts';
import { default${k.kind}, validate${k.kind} } from './${k.lower}-webhook.ts';

test('the defaulter fills an unset message and keeps a set one', () => {
  const unset: ${k.kind} = { spec: { size: 1 } };
  default${k.kind}(unset);
  assert.equal(unset.spec?.message, 'hello');
  const set: ${k.kind} = { spec: { message: 'mine' } };
  default${k.kind}(set);
  assert.equal(set.spec?.message, 'mine');
});

test('the validator refuses a size above 10', () => {
  assert.doesNotThrow(() => validate${k.kind}({ spec: { size: 10 } }));
  assert.throws(() => validate${k.kind}({ spec: { size: 11 } }), /spec\\.size: Invalid value: 11/);
});
`;
}

/** src/webhook/<kind>-<version>-conversion.ts: a spoke version's conversions to and from the hub. */
export function spokeConversionTs(k: KindNames, hub: string): string {
  const spokeType = `${k.kind}${versionSuffix(k.version)}`;
  return `/**
 * ${k.kind} ${k.version} ⇄ ${hub} (the hub, the stored version): the conversion webhook turns every
 * ${k.version} object into ${hub} with convertTo and back with convertFrom.
 */
import type { Convertible } from 'kubeloom/webhook/conversion';
import type { ${k.kind}, ${spokeType} } from '../api/${k.lower}/index.ts';

/** ${k.version}'s conversions. The versions have the same fields so far: map renamed or moved fields here. */
export const ${k.camel}${versionSuffix(k.version)}Conversion: Convertible<${spokeType}, ${k.kind}> = {
  convertTo: (spoke) => ({ ...spoke, apiVersion: '${k.group}/${hub}' }),
  convertFrom: (hub) => ({ ...hub, apiVersion: '${k.group}/${k.version}' }),
};
`;
}

/** src/webhook/<kind>-<version>-conversion.test.ts. */
export function spokeConversionTestTs(k: KindNames, hub: string): string {
  const conv = `${k.camel}${versionSuffix(k.version)}Conversion`;
  return `import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ${k.kind} } from '../api/${k.lower}/index.ts';
import { ${conv} } from './${k.lower}-${k.version}-conversion.ts';

test('${k.kind} ${hub} → ${k.version} → ${hub} gives back the object', async () => {
  const hub: ${k.kind} = { apiVersion: '${k.group}/${hub}', kind: '${k.kind}', metadata: { name: 'sample' }, spec: { size: 3, message: 'hi' } };
  const spoke = await ${conv}.convertFrom(hub);
  assert.equal(spoke.apiVersion, '${k.group}/${k.version}');
  assert.deepEqual(await ${conv}.convertTo(spoke), hub);
});
`;
}

/** src/webhook/<kind>-conversion.ts: registers the kind's conversion webhook with every spoke. */
export function conversionTs(k: KindNames, hub: string): string {
  const hubDescriptor = `${k.plural}${versionSuffix(hub)}`;
  return `/**
 * The ${k.kind} conversion webhook: ${hub} is the hub, every other version a spoke converting to and
 * from it. \`npm run manifests\` points the CRD's spec.conversion at the webhook Service's /convert.
 */
import { webhookManagedBy, type WebhookRegistration } from 'kubeloom/builder';
import type { Manager } from 'kubeloom/manager';
import { ${hubDescriptor} } from '../api/${k.lower}/index.ts';
${anchor('spoke-imports')}

/** Registers the ${k.kind} conversions on the manager's webhook server (at /convert). */
export function setup${k.kind}Conversion(mgr: Manager): WebhookRegistration {
  return webhookManagedBy(mgr)
    .for(${hubDescriptor})
    .withConversion({
      hub: '${hub}',
      spokes: {
        ${anchor('spokes')}
      },
    })
    .complete();
}
`;
}

/** The lines a spoke adds to src/webhook/<kind>-conversion.ts. */
export function conversionInserts(k: KindNames): Record<string, string[]> {
  const conv = `${k.camel}${versionSuffix(k.version)}Conversion`;
  return { 'spoke-imports': [`import { ${conv} } from './${k.lower}-${k.version}-conversion.ts';`], spokes: [`${k.version}: ${conv},`] };
}

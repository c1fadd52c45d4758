/**
 * The files `kubeloom create api` writes for a kind (kubebuilder's api/<version>/<kind>_types.go with
 * its markers, as a TypeScript declaration): src/api/<kind>/<version>.ts holds one version's schema,
 * built with kubeloom/apiextensions' `s`, which gives both the TypeScript type and the CRD's
 * openAPIV3Schema; src/api/<kind>/index.ts declares the CRD with every version (`defineCrd`) and
 * exports the object types and kind descriptors.
 */
import { anchor } from '../anchors.ts';
import { versionSuffix, type KindNames } from '../names.ts';

/** src/api/<kind>/<version>.ts: the schema of one version. */
export function versionTs(k: KindNames): string {
  return `/**
 * ${k.kind} ${k.version}: the fields of the kind in this version. The schema is the one source of the
 * TypeScript type (index.ts) and of the CRD's openAPIV3Schema (\`npm run manifests\`); change the
 * fields here.
 */
import { s } from 'kubeloom/apiextensions';

/** ${k.kind}'s fields besides apiVersion, kind and metadata. */
export const schema = s.object(
  {
    spec: s.object(
      {
        // Your fields go here.
        size: s.integer({ minimum: 0, default: 1, description: 'How many of it there should be.' }),
        message: s.string({ maxLength: 256, description: 'A free-form note.' }),
      },
      { description: '${k.kind}Spec: the desired state of a ${k.kind}.' },
    ),
    status: s.object(
      {
        observedGeneration: s.integer({ format: 'int64', description: 'The generation the controller last acted on.' }),
        conditions: s.listMap(
          s.object(
            {
              type: s.string(),
              status: s.enum(['True', 'False', 'Unknown']),
              reason: s.string(),
              message: s.string(),
              lastTransitionTime: s.string({ format: 'date-time' }),
            },
            { required: ['type', 'status', 'reason', 'message', 'lastTransitionTime'] },
          ),
          ['type'],
        ),
      },
      { description: '${k.kind}Status: the observed state of a ${k.kind}.' },
    ),
  },
  { description: '${k.kind} is the Schema for the ${k.plural} API.' },
);

/** The ${k.version} entry of the CRD's versions. */
export const ${k.version} = {
  name: '${k.version}' as const,
  schema,
  subresources: { status: {} },
  additionalPrinterColumns: [
    { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};
`;
}

/** src/api/<kind>/index.ts for a new kind. */
export function indexTs(k: KindNames): string {
  return `/**
 * The ${k.kind} kind (${k.group}): its CRD, declared with every version, and the object types and kind
 * descriptors the controller, the client and the webhooks use. The first version is stored (and the
 * hub of conversions).
 */
import { defineCrd, type ObjectOf } from 'kubeloom/apiextensions';
import { ${k.version} } from './${k.version}.ts';
${anchor('version-imports')}

/** The ${k.kind} CRD: \`npm run manifests\` writes it to config/crd, the tests install it. */
export const ${k.plural} = defineCrd({
  group: '${k.group}',
  kind: '${k.kind}',
  plural: '${k.plural}',
  scope: '${k.namespaced ? 'Namespaced' : 'Cluster'}',
  versions: [
    ${k.version},
    ${anchor('versions')}
  ],
});

/** A ${k.kind} in version ${k.version}. */
export type ${k.kind} = ObjectOf<typeof ${k.plural}, '${k.version}'>;
/** The kind descriptor of ${k.version} ${k.kind}s, for the manager, the client and the builders. */
export const ${k.plural}${versionSuffix(k.version)} = ${k.plural}.resource('${k.version}');
${anchor('version-exports')}
`;
}

/** The lines a further version adds to src/api/<kind>/index.ts. */
export function indexInsertsForVersion(k: KindNames): Record<string, string[]> {
  const v = versionSuffix(k.version);
  return {
    'version-imports': [`import { ${k.version} } from './${k.version}.ts';`],
    versions: [`${k.version},`],
    'version-exports': [
      `/** A ${k.kind} in version ${k.version}. */`,
      `export type ${k.kind}${v} = ObjectOf<typeof ${k.plural}, '${k.version}'>;`,
      `/** The kind descriptor of ${k.version} ${k.kind}s. */`,
      `export const ${k.plural}${v} = ${k.plural}.resource('${k.version}');`,
    ],
  };
}

/** config/samples/<group>_<version>_<kind>.yaml: an object to try the kind with (kubebuilder's samples). */
export function sampleYaml(k: KindNames): string {
  return `# A ${k.kind} to try the operator with: kubectl apply -k config/samples
apiVersion: ${k.group}/${k.version}
kind: ${k.kind}
metadata:
  name: ${k.lower}-sample
spec:
  size: 1
`;
}

/** The file name of a sample. */
export function sampleFile(k: KindNames): string {
  return `${k.group}_${k.version}_${k.lower}.yaml`;
}

/** config/samples/kustomization.yaml; \`create api\` adds each sample above the anchor. */
export function samplesKustomization(): string {
  return `# The samples of every kind (written once by kubeloom create api; yours to edit).
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
${anchor('samples', '#')}
`;
}

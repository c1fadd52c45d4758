/**
 * Manifests as YAML (what `controller-gen crd` and `kustomize build` write): one document per object,
 * separated by `---`, keys in the objects' order, no line folding, and no anchors or aliases. The
 * `yaml` library turns an object reached twice (a schema node reused in two places of a
 * {@link defineCrd} declaration) into `&a1` / `*a1`; some tools that read manifests do not resolve
 * them, and a reader cannot see the repeated schema, so every occurrence is written in full.
 */
import { stringify } from 'yaml';

/**
 * `objects` as YAML documents (a single object: one document), each ending in a newline.
 *
 * @example
 * await writeFile('config/crd/bases/example.com_widgets.yaml', toYaml(widgets.manifest));
 * process.stdout.write(toYaml([widgets.manifest, websites.manifest]));
 */
export function toYaml(objects: unknown): string {
  const docs = Array.isArray(objects) ? objects : [objects];
  return docs.map((o) => stringify(o, { aliasDuplicateObjects: false, lineWidth: 0 })).join('---\n');
}

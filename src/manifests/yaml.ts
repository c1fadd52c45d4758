/**
 * YAML as `kubeloom manifests` writes it: documents in the key order they were built in, no anchors or
 * aliases (an object used twice is written twice), no line folding, `---` between documents. The same
 * objects always give the same bytes, so a regenerated config/ diffs only where the input changed.
 */
import { stringify } from 'yaml';

/** One or more objects as a YAML stream (documents separated by `---`), ending in a newline. */
export function toYaml(...documents: readonly unknown[]): string {
  return documents.map((d) => stringify(d, { aliasDuplicateObjects: false, indentSeq: false, lineWidth: 0, minContentWidth: 0 })).join('---\n');
}

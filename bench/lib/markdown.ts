/** Markdown table writer for BENCHMARKS.md. */

/** A table: header cells and rows of cells (already formatted). */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[], align?: readonly ('l' | 'r')[]): string {
  const esc = (c: string): string => c.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const line = (cells: readonly string[]): string => `| ${cells.map(esc).join(' | ')} |`;
  const sep = header.map((_, i) => ((align?.[i] ?? (i === 0 ? 'l' : 'r')) === 'r' ? '---:' : ':---'));
  return [line(header), `| ${sep.join(' | ')} |`, ...rows.map(line)].join('\n');
}

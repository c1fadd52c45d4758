/**
 * The human-readable output of `kubeloom get`, after kubectl's HumanReadablePrinter
 * (staging/src/k8s.io/cli-runtime/pkg/printers/tableprinter.go).
 *
 * The server renders the rows: `kubeloom get` asks for a `meta.k8s.io/v1` Table (as kubectl does), so
 * every resource shows the columns its API server defines, CustomResourceDefinition
 * `additionalPrinterColumns` included. When a server answers with plain objects instead (one that
 * does not implement Table rendering), a client-side fallback prints NAME and AGE, plus kubectl's
 * pod columns for pods.
 */
import type { Pod } from '../api/core/v1.ts';
import type { KubeObject } from '../apimachinery/object.ts';
import type { Clock } from '../util/clock/clock.ts';

/** The Accept header kubectl sends for human-readable output: a Table, else plain JSON. */
export const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

/** A column of a server-rendered Table (metav1.TableColumnDefinition). */
export interface TableColumnDefinition {
  name: string;
  type: string;
  format?: string;
  description?: string;
  /** 0 for the default view; higher priorities show with `-o wide` only. */
  priority?: number;
}

/** A row of a server-rendered Table (metav1.TableRow). */
export interface TableRow {
  cells: unknown[];
  /** The object (PartialObjectMetadata by default), for the NAMESPACE column. */
  object?: KubeObject;
}

/** A server-rendered Table (metav1.Table). Watch events after the first carry no column definitions. */
export interface Table {
  kind: 'Table';
  apiVersion: string;
  columnDefinitions?: TableColumnDefinition[] | null;
  rows?: TableRow[] | null;
}

/** Whether a response body is a server-rendered Table. */
export function isTable(obj: unknown): obj is Table {
  return typeof obj === 'object' && obj !== null && (obj as { kind?: unknown }).kind === 'Table' && String((obj as { apiVersion?: unknown }).apiVersion).startsWith('meta.k8s.io/');
}

/**
 * Formats an age like kubectl (duration.HumanDuration): `45s`, `3m20s`, `15m`, `5h10m`, `30h`, `4d3h`,
 * `120d`, `3y20d`, `9y`.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.floor(hours / 24) % 365;
    return dy === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${dy}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

/** Aligns rows into columns separated by three spaces, as kubectl's tabwriter does. */
export function formatTable(rows: string[][], widths?: number[]): { text: string; widths: number[] } {
  const w = widths ?? [];
  for (const r of rows) r.forEach((c, i) => (w[i] = Math.max(w[i] ?? 0, c.length)));
  const text = rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(w[i]!))).join('   ')).join('\n');
  return { text: text === '' ? '' : `${text}\n`, widths: w };
}

/** A cell as kubectl prints it: strings cut at the first newline (marked `...`), null as nothing. */
export function cellText(cell: unknown): string {
  if (cell === null || cell === undefined) return '';
  if (typeof cell === 'string') {
    const newline = cell.indexOf('\n');
    return newline >= 0 ? `${cell.slice(0, newline)}...` : cell;
  }
  if (typeof cell === 'number' || typeof cell === 'boolean' || typeof cell === 'bigint') return String(cell);
  return JSON.stringify(cell);
}

/** Options of {@link TablePrinter}. */
export interface TablePrinterOptions {
  /** `-o wide`: also the columns of priority > 0 (and IP/NODE in the pod fallback). */
  wide: boolean;
  /** `-A`: a NAMESPACE column first. */
  withNamespace: boolean;
  /** The client-side fallback prints kubectl's pod columns. */
  pods: boolean;
  /** Ages in the client-side fallback are measured on this clock. */
  clock: Clock;
}

/**
 * Prints Tables (or, as a fallback, objects) as aligned text, remembering the columns and widths
 * across calls so a watch's rows line up under the list's header, which is printed once.
 */
export class TablePrinter {
  readonly #options: TablePrinterOptions;
  #columns: TableColumnDefinition[] = [];
  #printedHeader = false;
  #widths: number[] | undefined;

  constructor(options: TablePrinterOptions) {
    this.#options = options;
  }

  /** The text for a server-rendered Table: its header the first time (or when columns change), then its rows. */
  table(table: Table): string {
    const definitions = table.columnDefinitions ?? [];
    if (definitions.length > 0 && JSON.stringify(definitions) !== JSON.stringify(this.#columns)) {
      this.#columns = definitions;
      this.#printedHeader = false;
    }
    const rows = table.rows ?? [];
    if (rows.length === 0) return '';
    const shown = this.#columns.map((c, i) => [c, i] as const).filter(([c]) => this.#options.wide || (c.priority ?? 0) === 0);
    const lines: string[][] = [];
    if (!this.#printedHeader) {
      lines.push([...(this.#options.withNamespace ? ['NAMESPACE'] : []), ...shown.map(([c]) => c.name.toUpperCase())]);
      this.#printedHeader = true;
    }
    for (const row of rows) {
      const namespace = this.#options.withNamespace ? [row.object?.metadata?.namespace ?? ''] : [];
      lines.push([...namespace, ...shown.map(([, i]) => cellText(row.cells[i]))]);
    }
    return this.#format(lines);
  }

  /** The text for objects a server sent instead of a Table: NAME (and pod columns), AGE. */
  objects(objects: readonly KubeObject[]): string {
    if (objects.length === 0) return '';
    const lines: string[][] = [];
    if (!this.#printedHeader) {
      lines.push(this.#fallbackHeader());
      this.#printedHeader = true;
    }
    for (const obj of objects) lines.push(this.#fallbackRow(obj));
    return this.#format(lines);
  }

  #format(lines: string[][]): string {
    const formatted = formatTable(lines, this.#widths);
    this.#widths = formatted.widths;
    return formatted.text;
  }

  #fallbackHeader(): string[] {
    const o = this.#options;
    const cols = o.withNamespace ? ['NAMESPACE', 'NAME'] : ['NAME'];
    if (o.pods) cols.push('READY', 'STATUS', 'RESTARTS');
    cols.push('AGE');
    if (o.pods && o.wide) cols.push('IP', 'NODE');
    return cols;
  }

  #fallbackRow(obj: KubeObject): string[] {
    const o = this.#options;
    const cols = o.withNamespace ? [obj.metadata?.namespace ?? '', obj.metadata?.name ?? ''] : [obj.metadata?.name ?? ''];
    const pod = obj as Pod;
    if (o.pods) cols.push(...podColumns(pod));
    const created = obj.metadata?.creationTimestamp;
    cols.push(created === undefined ? '<unknown>' : humanDuration(o.clock.now() - Date.parse(created)));
    if (o.pods && o.wide) cols.push(pod.status?.podIP ?? '<none>', pod.spec?.nodeName ?? '<none>');
    return cols;
  }
}

/** The READY, STATUS and RESTARTS columns of a pod, simplified from kubectl's pod printer. */
function podColumns(pod: Pod): [string, string, string] {
  const statuses = pod.status?.containerStatuses ?? [];
  const total = pod.spec?.containers.length ?? statuses.length;
  const ready = statuses.filter((c) => c.ready).length;
  const restarts = statuses.reduce((n, c) => n + c.restartCount, 0);
  let status = pod.status?.reason ?? pod.status?.phase ?? 'Pending';
  for (const c of statuses) {
    const reason = c.state?.waiting?.reason ?? c.state?.terminated?.reason;
    if (reason !== undefined && reason !== '') status = reason;
  }
  if (pod.metadata?.deletionTimestamp !== undefined) status = 'Terminating';
  return [`${ready}/${total}`, status, String(restarts)];
}

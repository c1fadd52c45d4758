/**
 * Container logs (GET /api/v1/namespaces/{ns}/pods/{name}/log, core/v1 PodLogOptions): read whole or
 * followed as an async iterable of lines.
 */
import type { RequestOptions } from '../apimachinery/options.ts';
import type { RestClient } from '../rest/client.ts';
import { resourcePath, type RestRequest } from '../rest/request.ts';

/** core/v1 PodLogOptions (follow is chosen by the method). */
export interface PodLogOptions extends RequestOptions {
  /** The container; required when the pod has several. */
  container?: string;
  /** The previous, terminated instance of the container. */
  previous?: boolean;
  /** Only lines newer than this many seconds. */
  sinceSeconds?: number;
  /** Only lines after this RFC 3339 time. */
  sinceTime?: string;
  /** Prefix every line with its RFC 3339 timestamp. */
  timestamps?: boolean;
  /** Only the last N lines. */
  tailLines?: number;
  /** Stop after this many bytes. */
  limitBytes?: number;
  /** Skip verifying the kubelet's serving certificate. */
  insecureSkipTLSVerifyBackend?: boolean;
}

/** The request for a pod's log, pure data. */
export function buildPodLogs(namespace: string, name: string, options: PodLogOptions = {}, follow = false): RestRequest {
  const query: Array<[string, string]> = [];
  if (options.container !== undefined && options.container !== '') query.push(['container', options.container]);
  if (follow) query.push(['follow', 'true']);
  if (options.insecureSkipTLSVerifyBackend === true) query.push(['insecureSkipTLSVerifyBackend', 'true']);
  if (options.limitBytes !== undefined) query.push(['limitBytes', String(options.limitBytes)]);
  if (options.previous === true) query.push(['previous', 'true']);
  if (options.sinceSeconds !== undefined) query.push(['sinceSeconds', String(options.sinceSeconds)]);
  if (options.sinceTime !== undefined) query.push(['sinceTime', options.sinceTime]);
  if (options.tailLines !== undefined) query.push(['tailLines', String(options.tailLines)]);
  if (options.timestamps === true) query.push(['timestamps', 'true']);
  const req: RestRequest = { verb: 'GET', path: resourcePath({ group: '', version: 'v1', namespace, resource: 'pods', name, subresource: 'log' }), query, headers: { accept: '*/*' } };
  if (follow) req.stream = true;
  return req;
}

/** Reads and follows container logs of the pods of one namespace. */
export class PodLogsClient {
  /** The client requests go through. */
  readonly rest: RestClient;
  /** The pods' namespace. */
  readonly namespace: string;

  constructor(rest: RestClient, namespace: string) {
    this.rest = rest;
    this.namespace = namespace;
  }

  /** The log text as it is now. */
  async get(name: string, options: PodLogOptions = {}): Promise<string> {
    const resp = await this.rest.do(buildPodLogs(this.namespace, name, options), options);
    return resp.body.toString('utf8');
  }

  /**
   * Follows the log: yields each line (without its newline) as the container writes it, until the
   * server ends the stream, the loop breaks or the signal aborts (which throws its reason). A final
   * line without newline is yielded when the stream ends.
   */
  async follow(name: string, options: PodLogOptions = {}): Promise<AsyncIterable<string>> {
    const resp = await this.rest.stream(buildPodLogs(this.namespace, name, options, true), options);
    const body = resp.body;
    const signal = options.signal;
    async function* lines(): AsyncGenerator<string, void, undefined> {
      const decoder = new TextDecoder();
      let partial = '';
      try {
        for await (const chunk of body) {
          const text = partial + decoder.decode(chunk as Buffer, { stream: true });
          const parts = text.split('\n');
          partial = parts.pop()!;
          for (const line of parts) yield line;
        }
        partial += decoder.decode();
        if (partial !== '') yield partial;
      } catch (err) {
        if (signal?.aborted === true) throw signal.reason;
        throw err;
      } finally {
        body.destroy();
      }
    }
    return lines();
  }
}

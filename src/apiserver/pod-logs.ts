/**
 * Canned container logs for GET /api/v1/namespaces/{ns}/pods/{name}/log: no kubelet runs, so tests
 * set the lines a pod "printed" and append more to followers (`?follow=true`).
 */
import type { ServerResponse } from 'node:http';

// The key of the default container: used when a test does not name one.
const defaultContainer = '';

interface Follower {
  res: ServerResponse;
  container: string | undefined;
}

/** Pod log lines by namespace, pod and container, with open `follow` streams. */
export class PodLogs {
  readonly #lines = new Map<string, Map<string, string[]>>();
  readonly #followers = new Map<string, Set<Follower>>();

  /** Replaces a container's lines. */
  set(namespace: string, pod: string, lines: readonly string[], container?: string): void {
    this.#containers(namespace, pod).set(container ?? defaultContainer, [...lines]);
  }

  /** Appends lines and writes them to every follower of that container. */
  append(namespace: string, pod: string, lines: readonly string[], container?: string): void {
    const c = container ?? defaultContainer;
    const containers = this.#containers(namespace, pod);
    containers.set(c, [...(containers.get(c) ?? []), ...lines]);
    const text = lines.map((l) => `${l}\n`).join('');
    for (const f of this.#followers.get(`${namespace}/${pod}`) ?? []) {
      if (this.#resolve(containers, f.container) === c) f.res.write(text);
    }
  }

  /** The lines of a container (the only or default one when `container` is undefined). */
  get(namespace: string, pod: string, container: string | undefined): string[] | undefined {
    const containers = this.#lines.get(`${namespace}/${pod}`);
    if (containers === undefined) return undefined;
    const c = this.#resolve(containers, container);
    return c === undefined ? undefined : containers.get(c);
  }

  #resolve(containers: Map<string, string[]>, container: string | undefined): string | undefined {
    if (container !== undefined && containers.has(container)) return container;
    if (containers.has(defaultContainer)) return defaultContainer;
    if (container === undefined && containers.size === 1) return containers.keys().next().value;
    return undefined;
  }

  #containers(namespace: string, pod: string): Map<string, string[]> {
    const key = `${namespace}/${pod}`;
    let m = this.#lines.get(key);
    if (m === undefined) {
      m = new Map();
      this.#lines.set(key, m);
    }
    return m;
  }

  /** Keeps `res` open and streams appended lines to it until the client goes away. */
  follow(namespace: string, pod: string, container: string | undefined, res: ServerResponse): void {
    const key = `${namespace}/${pod}`;
    let set = this.#followers.get(key);
    if (set === undefined) {
      set = new Set();
      this.#followers.set(key, set);
    }
    const f: Follower = { res, container };
    set.add(f);
    res.on('close', () => set.delete(f));
  }

  /** Ends every follow stream (server stop). */
  closeFollowers(): void {
    for (const set of this.#followers.values()) for (const f of set) f.res.destroy();
    this.#followers.clear();
  }
}

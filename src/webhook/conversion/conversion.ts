/**
 * Conversion webhooks, hub and spoke (controller-runtime pkg/webhook/conversion/conversion.go and
 * pkg/conversion): per kind, one version is the hub and every other version is a spoke that converts
 * itself to the hub (`convertTo`) and back (`convertFrom`). A ConversionReview's objects are each
 * converted to `desiredAPIVersion`: hub → spoke through the spoke's convertFrom, spoke → hub through
 * its convertTo, spoke → spoke through the hub. The converted objects carry the desired apiVersion
 * and the kind whatever the converter returned. The answer is the review received (same apiVersion
 * and kind), its request dropped and a response added: the converted objects and result status
 * Success, or, when any object fails, no objects and status Failure with the error's message. A body
 * that is not JSON or has no request gets an empty HTTP 400, as upstream.
 *
 * Differences: Go names the failing types (`*v1.CronJob`) in its messages; kubeloom names them by
 * apiVersion and kind. Converters are plain functions over JSON objects instead of methods on Go types.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { defaultLogger, type Logger } from '../../tools/events/logger.ts';

type Obj = Record<string, unknown>;

/** A spoke version's conversions to and from the hub version (controller-runtime conversion.Convertible). */
export interface Convertible<Spoke = Record<string, unknown>, Hub = Record<string, unknown>> {
  /** Converts an object of this version to the hub version. */
  convertTo(src: Spoke): Hub | Promise<Hub>;
  /** Converts an object of the hub version to this version. */
  convertFrom(hub: Hub): Spoke | Promise<Spoke>;
}

/** The conversions of one kind: its hub version and its spokes. */
export interface KindConversion {
  /** API group of the kind. */
  group: string;
  /** The kind, CamelCase. */
  kind: string;
  /** The hub version (controller-runtime's Hub marker). */
  hub: string;
  /** Every other served version, with its conversions to and from the hub. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each spoke has its own types; the webhook only moves JSON
  spokes: Record<string, Convertible<any, any>>;
}

/** A failure converting one object; its message becomes the review's Failure message. */
export class ConversionError extends Error {
  /** Stable identifier. */
  readonly code = 'ERR_CONVERSION';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConversionError';
  }
}

/** Options of {@link ConversionWebhook}. */
export interface ConversionWebhookOptions {
  /** Log sink (default: errors to stderr). */
  logger?: Logger;
}

/** A ConversionRequest (apiextensions/v1). */
export interface ConversionRequest {
  /** Identifies the call; echoed in the response. */
  uid: string;
  /** The version to convert to, `<group>/<version>`. */
  desiredAPIVersion: string;
  /** The objects to convert. */
  objects: Record<string, unknown>[];
}

/** A ConversionResponse (apiextensions/v1). */
export interface ConversionResponse {
  /** The request's uid. */
  uid: string;
  /** The converted objects, in request order (null on failure). */
  convertedObjects: Record<string, unknown>[] | null;
  /** `status` Success or Failure, with a message on failure. */
  result: ConversionResult;
}

/** The result Status of a conversion (metav1.Status as the webhook answers it). */
export interface ConversionResult {
  /** Always empty (Go encodes the Status's ListMeta). */
  metadata: Record<string, never>;
  /** Success or Failure. */
  status: 'Success' | 'Failure';
  /** Why it failed. */
  message?: string;
}

const splitApiVersion = (apiVersion: string): [string, string] => {
  const i = apiVersion.indexOf('/');
  return i < 0 ? ['', apiVersion] : [apiVersion.slice(0, i), apiVersion.slice(i + 1)];
};

/**
 * Serves a CRD's `spec.conversion.webhook` (register it at `/convert`).
 *
 * @example
 * ```ts
 * const convert = new ConversionWebhook().register({
 *   group: 'example.com', kind: 'Widget', hub: 'v2',
 *   spokes: { v1: { convertTo: (v1) => ({ ...v1, spec: { size: String(v1.spec.size) } }), convertFrom: (v2) => ({ ...v2, spec: { size: Number(v2.spec.size) } }) } },
 * });
 * server.register('/convert', convert);
 * ```
 */
export class ConversionWebhook {
  readonly #kinds = new Map<string, KindConversion>();
  readonly #logger: Logger;

  constructor(options: ConversionWebhookOptions = {}) {
    this.#logger = options.logger ?? defaultLogger;
    this.serveHTTP = this.serveHTTP.bind(this);
  }

  /** Adds the conversions of a kind (replacing earlier ones of the same group and kind); returns this. */
  register(kind: KindConversion): this {
    if (Object.hasOwn(kind.spokes, kind.hub)) throw new ConversionError(`${kind.group}/${kind.hub}, Kind=${kind.kind} cannot be both the hub and a spoke`);
    this.#kinds.set(`${kind.kind}.${kind.group}`, kind);
    return this;
  }

  /** True when some version of the kind of `group` is registered. */
  isConvertible(group: string, kind: string): boolean {
    return this.#kinds.has(`${kind}.${group}`);
  }

  /** Converts the objects of a request (handleConvertRequest); any failure fails the whole response. */
  async convert(request: ConversionRequest): Promise<ConversionResponse> {
    try {
      const convertedObjects: Obj[] = [];
      for (const o of request.objects) convertedObjects.push(await this.#convertObject(o, request.desiredAPIVersion));
      return { uid: request.uid, convertedObjects, result: { metadata: {}, status: 'Success' } };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.#logger.error('failed to convert', { uid: request.uid, error: message });
      return { uid: request.uid, convertedObjects: null, result: { metadata: {}, status: 'Failure', message } };
    }
  }

  async #convertObject(src: Obj, desiredAPIVersion: string): Promise<Obj> {
    const apiVersion = typeof src.apiVersion === 'string' ? src.apiVersion : '';
    const kindName = typeof src.kind === 'string' ? src.kind : '';
    if (kindName === '') throw new ConversionError(`Object 'Kind' is missing in '${JSON.stringify(src)}'`);
    const [srcGroup, srcVersion] = splitApiVersion(apiVersion);
    const [dstGroup, dstVersion] = splitApiVersion(desiredAPIVersion);
    const from = this.#version(srcGroup, srcVersion, kindName);
    const to = this.#version(dstGroup, dstVersion, kindName);
    const srcName = `${apiVersion}, Kind=${kindName}`;
    const dstName = `${desiredAPIVersion}, Kind=${kindName}`;
    if (srcGroup !== dstGroup) throw new ConversionError(`src ${srcName} and dst ${dstName} does not belong to same API Group`);
    if (srcVersion === dstVersion) throw new ConversionError(`conversion is not allowed between same type ${srcName}`);
    const k = from.kind;
    const hubApiVersion = k.group === '' ? k.hub : `${k.group}/${k.hub}`;
    let out: Obj;
    if (from.spoke === undefined && to.spoke !== undefined) {
      out = (await to.spoke.convertFrom(structuredClone(src))) as Obj;
    } else if (to.spoke === undefined && from.spoke !== undefined) {
      out = (await from.spoke.convertTo(structuredClone(src))) as Obj;
    } else if (from.spoke !== undefined && to.spoke !== undefined) {
      // convertViaHub, which names both ends of the failing step.
      const hubName = `${hubApiVersion}, Kind=${kindName}`;
      let hub: Obj;
      try {
        hub = { ...((await from.spoke.convertTo(structuredClone(src))) as Obj), apiVersion: hubApiVersion, kind: kindName };
      } catch (err) {
        throw new ConversionError(`${srcName} failed to convert to hub version ${hubName} : ${(err as Error).message}`, { cause: err });
      }
      try {
        out = (await to.spoke.convertFrom(hub)) as Obj;
      } catch (err) {
        throw new ConversionError(`${dstName} failed to convert from hub version ${hubName} : ${(err as Error).message}`, { cause: err });
      }
    } else {
      throw new ConversionError(`${srcName} is not convertible to ${dstName}`);
    }
    const { apiVersion: _a, kind: _k, ...rest } = out;
    return { apiVersion: desiredAPIVersion, kind: kindName, ...rest };
  }

  // scheme.New: the version must be the kind's hub or one of its spokes.
  #version(group: string, version: string, kindName: string): { kind: KindConversion; spoke: Convertible | undefined } {
    const k = this.#kinds.get(`${kindName}.${group}`);
    if (k !== undefined && (k.hub === version || Object.hasOwn(k.spokes, version))) return { kind: k, spoke: k.hub === version ? undefined : (k.spokes[version] as Convertible) };
    throw new ConversionError(`no kind ${JSON.stringify(kindName)} is registered for version ${JSON.stringify(group === '' ? version : `${group}/${version}`)}`);
  }

  /** Serves one HTTP request carrying a ConversionReview. */
  async serveHTTP(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
    let review: Obj;
    try {
      review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Obj;
      if (typeof review !== 'object' || review === null || Array.isArray(review)) throw new Error('not a ConversionReview');
    } catch (err) {
      this.#logger.error('failed to read conversion request', { error: (err as Error).message });
      res.writeHead(400).end();
      return;
    }
    const request = review.request as Partial<ConversionRequest> | null | undefined;
    if (typeof request !== 'object' || request === null) {
      this.#logger.error('conversion request is nil');
      res.writeHead(400).end();
      return;
    }
    const response = await this.convert({
      uid: typeof request.uid === 'string' ? request.uid : '',
      desiredAPIVersion: typeof request.desiredAPIVersion === 'string' ? request.desiredAPIVersion : '',
      objects: Array.isArray(request.objects) ? request.objects : [],
    });
    const out: Obj = {};
    if (typeof review.kind === 'string' && review.kind !== '') out.kind = review.kind;
    if (typeof review.apiVersion === 'string' && review.apiVersion !== '') out.apiVersion = review.apiVersion;
    out.response = response;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`${JSON.stringify(out)}\n`);
  }
}

/**
 * GET and LIST of componentstatuses: computed objects (registry/core/component-status.ts) in the
 * negotiated form (object, Table or metadata), with the deprecation warning.
 */
import type { ServerResponse } from 'node:http';
import { componentStatuses, componentStatusWarning } from '../registry/core/component-status.ts';
import { notFound } from '../status.ts';
import type { StoredObject } from '../storage.ts';
import { partialMetadata, toTable } from '../table.ts';
import { addWarnings } from './field-validation.ts';
import { checkMetadataShape, renderOne, sendObject, tableOptions, withoutTypeMeta, type Render } from './response.ts';
import type { RequestScope, Target } from './scope.ts';

function computed(rv: number): StoredObject[] {
  return componentStatuses().map((obj) => {
    const name = String((obj.metadata as Record<string, unknown>).name);
    return { obj, json: JSON.stringify(obj), rv, key: name };
  });
}

/** Serves GET of one component's status or LIST of all. */
export function readComponentStatuses(scope: RequestScope, t: Target, q: URLSearchParams, render: Render, res: ServerResponse): void {
  addWarnings(res, [componentStatusWarning]);
  const includeObject = tableOptions(q, render);
  checkMetadataShape(t, render, t.name === undefined);
  const items = computed(scope.storage.revision);
  if (t.name !== undefined) {
    const s = items.find((x) => x.key === t.name);
    if (s === undefined) throw notFound(t.r, t.name);
    sendObject(res, 200, renderOne(scope, t, s, render, includeObject), render);
    return;
  }
  // The list is not read from storage: its ListMeta is empty.
  const listMeta = {};
  if (render.as === 'table') {
    sendObject(res, 200, JSON.stringify({ ...toTable(t.r, items, { includeObject, noHeaders: false, now: scope.config.clock.now(), listMeta }), apiVersion: render.apiVersion }), render);
    return;
  }
  if (render.as === 'metadata') {
    sendObject(res, 200, JSON.stringify({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: listMeta, items: items.map((s) => partialMetadata(s.obj)) }), render);
    return;
  }
  sendObject(res, 200, `{"kind":"ComponentStatusList","apiVersion":"v1","metadata":{},"items":[${items.map((s) => withoutTypeMeta(s.json)).join(',')}]}`, render);
}

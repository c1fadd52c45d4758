/**
 * The dashboard page (kubeloom): one self-contained HTML document with plain JavaScript, no framework
 * and nothing fetched from elsewhere. It polls, once a second, `/dashboard/api/objects` (objects and
 * events), `/debug/controllers` (informers, queues, controllers) and `/debug/reconciles?after=<id>`
 * (new reconciles), and draws a reconcile timeline: one lane per controller, one bar per reconcile,
 * coloured by result; clicking a bar shows its request, causes, error and trace id.
 *
 * Every value from the cluster is written with textContent, never as markup.
 */

const css = `
:root { --ok: #2e7d32; --requeue: #f9a825; --err: #c62828; --fg: #1d2330; --muted: #5b6475; --line: #d9dde5; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, sans-serif; color: var(--fg); background: #f6f7f9; }
header { background: #1d2330; color: #fff; padding: 10px 18px; display: flex; gap: 16px; align-items: baseline; }
header h1 { font-size: 18px; margin: 0; }
header .meta { color: #b8c0cf; font-size: 12px; }
main { display: grid; grid-template-columns: 1fr 1fr; gap: 14px; padding: 14px 18px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; min-width: 0; }
section.wide { grid-column: 1 / -1; }
h2 { font-size: 15px; margin: 0 0 8px; }
h3 { font-size: 13px; margin: 10px 0 4px; color: var(--muted); }
table { border-collapse: collapse; width: 100%; font-size: 12.5px; }
th, td { text-align: left; padding: 3px 6px; border-bottom: 1px solid #eef0f3; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; max-width: 360px; }
th { color: var(--muted); font-weight: 600; }
.empty { color: var(--muted); font-style: italic; }
#timeline { position: relative; }
.lane { display: flex; align-items: center; height: 26px; border-bottom: 1px solid #eef0f3; }
.lane .name { width: 170px; flex: none; font-size: 12px; color: var(--muted); overflow: hidden; text-overflow: ellipsis; }
.lane .track { position: relative; flex: 1; height: 18px; background: #fafbfc; }
.bar { position: absolute; top: 1px; height: 16px; min-width: 4px; border-radius: 2px; cursor: pointer; opacity: .9; }
.bar:hover, .bar.selected { opacity: 1; outline: 2px solid #1d2330; }
.bar.success { background: var(--ok); } .bar.requeue_after { background: var(--requeue); } .bar.error { background: var(--err); }
.legend span { display: inline-block; margin-right: 12px; font-size: 12px; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; border-radius: 2px; }
#details { margin-top: 8px; font-size: 12.5px; }
#details code { background: #f0f2f5; padding: 1px 4px; border-radius: 3px; }
.bad { color: var(--err); } .good { color: var(--ok); }
`;

const script = `
'use strict';
const state = { lastId: -1, reconciles: [], selected: undefined, hasControllers: true, drawn: false };
function el(tag, props, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === 'class') e.className = v; else if (k === 'onclick') e.onclick = v; else if (k === 'title') e.title = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(c === undefined || c === null ? '' : String(c)));
  return e;
}
function table(headers, rows) {
  if (rows.length === 0) return el('p', { class: 'empty' }, 'none');
  return el('table', {}, el('thead', {}, el('tr', {}, ...headers.map((h) => el('th', {}, h)))), el('tbody', {}, ...rows.map((r) => el('tr', {}, ...r.map((c) => el('td', { title: String(c) }, c))))));
}
function fill(id, ...nodes) { const e = document.getElementById(id); e.replaceChildren(...nodes); }
function secs(s) { return s === undefined ? '' : s < 1 ? (s * 1000).toFixed(0) + ' ms' : s.toFixed(1) + ' s'; }
async function getJson(path) { const r = await fetch(path, { cache: 'no-store' }); if (!r.ok) throw new Error(path + ': ' + r.status); return r.json(); }

async function refreshObjects() {
  const o = await getJson('/dashboard/api/objects');
  const parts = [];
  for (const c of o.collections) {
    parts.push(el('h3', {}, c.title + ' (' + c.items.length + ')'));
    parts.push(table(['namespace', 'name', 'status', 'rv'], c.items.map((i) => [i.namespace, i.name, i.status, i.resourceVersion])));
  }
  fill('objects', ...parts);
  fill('events', table(['time', 'type', 'reason', 'object', 'message'], o.events.map((e) => [e.time, e.type, e.reason, e.object, e.message])));
}

async function refreshControllers() {
  let d;
  try { d = await getJson('/debug/controllers'); } catch { state.hasControllers = false; }
  if (!state.hasControllers) {
    for (const id of ['controllers', 'informers', 'timeline']) fill(id, el('p', { class: 'empty' }, 'No Manager here: controllers, informers and the reconcile timeline show on a Manager\\'s dashboard (dashboardBindAddress).'));
    return;
  }
  fill('controllers', table(['controller', 'busy', 'reconciles', 'errors', 'queue', 'oldest', 'in flight', 'retries', 'last error'], d.controllers.map((c) => [
    c.name, c.workersBusy + '/' + c.workers, c.reconciles, c.errors, c.queue.depth, secs(c.queue.oldestItemAgeSeconds), c.queue.inFlight.map((f) => f.key).join(', '), c.queue.retries, c.lastError ? c.lastError.key + ': ' + c.lastError.message : '',
  ])));
  fill('informers', table(['resource', 'ns', 'synced', 'rv', 'items', 'last event', 'relists', 'watch restarts'], d.informers.map((i) => [
    i.resource, i.namespace || '*', i.synced ? 'yes' : 'no', i.resourceVersion, i.items, secs(i.lastEventAgeSeconds), i.relists, i.watchRestarts,
  ])));
  const le = d.leaderElection;
  fill('leader', le.enabled ? (le.lease + ': ' + (le.isLeader ? 'leading' : 'not leading') + (le.healthy ? '' : ' (' + le.error + ')')) : 'leader election off');
  const r = await getJson('/debug/reconciles?after=' + state.lastId);
  for (const x of r.reconciles) { state.reconciles.push(x); state.lastId = Math.max(state.lastId, x.id); }
  if (state.reconciles.length > 2000) state.reconciles.splice(0, state.reconciles.length - 2000);
  // Redrawn only when something new came: bars stay put (and clickable) while nothing happens.
  if (r.reconciles.length > 0 || !state.drawn) { state.drawn = true; drawTimeline(); }
}

function drawTimeline() {
  const rs = state.reconciles;
  if (rs.length === 0) { fill('timeline', el('p', { class: 'empty' }, 'no reconciles yet')); return; }
  const end = Math.max(...rs.map((r) => r.start + r.durationMs));
  const windowMs = Math.max(10000, Math.min(120000, end - Math.min(...rs.map((r) => r.start))));
  const from = end - windowMs;
  const lanes = [...new Set(rs.map((r) => r.controller))].sort();
  const nodes = lanes.map((name) => {
    const track = el('div', { class: 'track' });
    for (const r of rs) {
      if (r.controller !== name || r.start + r.durationMs < from) continue;
      const left = ((r.start - from) / windowMs) * 100;
      const width = Math.max((r.durationMs / windowMs) * 100, 0.4);
      const bar = el('div', { class: 'bar ' + r.result + (state.selected === r.id ? ' selected' : ''), title: r.key + ' ' + r.result, 'data-id': String(r.id), 'data-key': r.key, 'data-result': r.result, onclick: () => { state.selected = r.id; showDetails(r); drawTimeline(); } });
      bar.style.left = left + '%';
      bar.style.width = width + '%';
      track.append(bar);
    }
    return el('div', { class: 'lane' }, el('div', { class: 'name', title: name }, name), track);
  });
  fill('timeline', ...nodes, el('div', { class: 'legend' }, el('span', {}, el('i', { style: 'background:var(--ok)' }), 'success'), el('span', {}, el('i', { style: 'background:var(--requeue)' }), 'requeue after'), el('span', {}, el('i', { style: 'background:var(--err)' }), 'error'), el('span', {}, 'last ' + (windowMs / 1000).toFixed(0) + ' s')));
}

function showDetails(r) {
  const causes = r.causes.map((c) => c.type === 'requeue'
    ? 'requeue (' + c.reason + ')'
    : c.type + (c.initialList ? ' (initial list)' : '') + ' ' + c.kind + ' ' + (c.namespace ? c.namespace + '/' : '') + c.name + ' rv=' + c.resourceVersion + ' by ' + c.handler + (c.predicates.length ? ' passing ' + c.predicates.join(', ') : ''));
  fill('details',
    el('div', {}, el('b', {}, r.controller + ' ' + r.key), ' ', el('span', { class: r.result === 'error' ? 'bad' : 'good' }, r.result), ' in ' + r.durationMs + ' ms'),
    r.error ? el('div', { class: 'bad' }, 'error: ' + r.error) : '',
    el('div', {}, 'trace id: ', el('code', { id: 'trace-id' }, r.traceId || '(tracing off)')),
    el('div', {}, 'causes (' + causes.length + '):'),
    el('ul', { id: 'causes' }, ...causes.map((c) => el('li', {}, c))));
}

async function tick() {
  try { await Promise.all([refreshObjects(), refreshControllers()]); fill('status', 'updated ' + new Date().toLocaleTimeString()); }
  catch (err) { fill('status', 'error: ' + err.message); }
  setTimeout(tick, 1000);
}
tick();
`;

/** The page's HTML; `mode` is shown in the header. */
export function dashboardHtml(mode: 'manager' | 'apiserver'): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>kubeloom dashboard</title><meta name="viewport" content="width=device-width, initial-scale=1"><style>${css}</style></head>
<body>
<header><h1>kubeloom</h1><span class="meta">${mode === 'manager' ? 'Manager (dev mode)' : 'API server'}</span><span class="meta" id="leader"></span><span class="meta" id="status">loading…</span></header>
<main>
<section class="wide"><h2>Reconcile timeline</h2><div id="timeline"></div><div id="details"></div></section>
<section><h2>Controllers</h2><div id="controllers"></div></section>
<section><h2>Informers</h2><div id="informers"></div></section>
<section><h2>Objects</h2><div id="objects"></div></section>
<section><h2>Events</h2><div id="events"></div></section>
</main>
<script>${script}</script>
</body></html>
`;
}

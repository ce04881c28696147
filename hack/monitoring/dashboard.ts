// deploy/monitoring/dashboard.json as data: the rows of panels.ts laid out on Grafana's 24-column
// grid, with three variables (the Prometheus data source, `controller`, `cluster`). Legends write
// labels as `{{ label }}`, with spaces, which Grafana reads the same as `{{label}}` and which the
// `rxfleet init` templates (`{{name}}`, no spaces) leave alone.
import type { Panel, Row } from './panels.js';

const datasource = { type: 'prometheus', uid: '${datasource}' } as const;

function queryVariable(name: string, label: string, query: string): Record<string, unknown> {
  return {
    name,
    label,
    type: 'query',
    datasource,
    query: { query, refId: `${name}-values` },
    definition: query,
    refresh: 2,
    sort: 1,
    multi: true,
    includeAll: true,
    allValue: '.*',
    current: { selected: true, text: ['All'], value: ['$__all'] },
    hide: 0,
  };
}

function panelJson(p: Panel, id: number, x: number, y: number): Record<string, unknown> {
  const h = p.type === 'stat' ? 4 : 8;
  return {
    id,
    type: p.type,
    title: p.title,
    description: p.description,
    datasource,
    gridPos: { h, w: p.w, x, y },
    targets: p.queries.map((q, i) => ({
      datasource,
      refId: String.fromCharCode(65 + i),
      expr: q.expr,
      ...(q.legend === undefined ? {} : { legendFormat: q.legend }),
      ...(p.type === 'stat' ? { instant: true, range: false } : { range: true }),
    })),
    fieldConfig: { defaults: { unit: p.unit, ...(p.type === 'timeseries' ? { custom: { fillOpacity: 10, showPoints: 'never' } } : {}) }, overrides: [] },
    options:
      p.type === 'stat'
        ? { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, colorMode: 'value', graphMode: 'none', textMode: 'auto' }
        : { legend: { displayMode: 'list', placement: 'bottom', showLegend: true }, tooltip: { mode: 'multi', sort: 'desc' } },
  };
}

/**
 * The Grafana dashboard (schema 39) of `rows`, ready to be written as JSON.
 *
 * @example
 * ```ts
 * writeFileSync('dashboard.json', `${JSON.stringify(dashboard(rows), null, 2)}\n`);
 * ```
 * @param rows - the rows of panels, top to bottom.
 * @returns the dashboard.
 */
export function dashboard(rows: readonly Row[]): Record<string, unknown> {
  const panels: Record<string, unknown>[] = [];
  let id = 1;
  let y = 0;
  for (const row of rows) {
    panels.push({ id: id++, type: 'row', title: row.title, collapsed: false, gridPos: { h: 1, w: 24, x: 0, y }, panels: [] });
    y += 1;
    let x = 0;
    let lineHeight = 0;
    for (const p of row.panels) {
      if (x + p.w > 24) {
        x = 0;
        y += lineHeight;
        lineHeight = 0;
      }
      const json = panelJson(p, id++, x, y);
      panels.push(json);
      x += p.w;
      lineHeight = Math.max(lineHeight, (json.gridPos as { h: number }).h);
    }
    y += lineHeight;
  }
  return {
    uid: 'rxfleet-controller',
    title: 'rxfleet controller',
    description: 'Reconciles, work queue, clusters and watches, replicas and the Node process of rxfleet controllers. From rxfleet deploy/monitoring.',
    tags: ['rxfleet', 'kubernetes'],
    editable: true,
    graphTooltip: 1,
    schemaVersion: 39,
    version: 1,
    time: { from: 'now-3h', to: 'now' },
    refresh: '30s',
    timezone: '',
    links: [],
    annotations: { list: [] },
    templating: {
      list: [
        { name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus', current: {}, hide: 0, refresh: 1 },
        queryVariable('controller', 'Controller', 'label_values(rxfleet_engaged_clusters, controller)'),
        queryVariable('cluster', 'Cluster', 'label_values(rxfleet_watch_synced{controller=~"$controller"}, cluster)'),
      ],
    },
    panels,
  };
}

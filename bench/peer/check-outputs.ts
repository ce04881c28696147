// The end-of-run check, so a fast wrong answer cannot win: every input `x` has exactly one `x-out`
// with the same data and the source annotation, read from the server (not from the driver's watch).
import { isDeepStrictEqual } from 'node:util';
import type { BenchFleet } from './fleet-setup.js';
import { INPUT_LABEL, SOURCE_ANNOTATION } from './fleet-setup.js';
import type { Kube } from './kube.js';
import { must } from './kube.js';

interface Cm {
  readonly metadata: { readonly name: string; readonly labels?: Record<string, string>; readonly annotations?: Record<string, string> };
  readonly data?: Record<string, string>;
}

/**
 * Lists every workspace's ConfigMaps and returns what is wrong (empty: all outputs right).
 *
 * @example
 * const problems = await checkOutputs(kube, fleet);
 */
export async function checkOutputs(kube: Kube, fleet: BenchFleet): Promise<string[]> {
  const problems: string[] = [];
  for (const ws of fleet.workspaces) {
    const res = must(await kube.request('GET', ws.cmPath), `list ConfigMaps in ${ws.name}`, 200);
    const items = (res.body as { items: Cm[] }).items;
    const byName = new Map(items.map((cm) => [cm.metadata.name, cm]));
    const inputs = items.filter((cm) => cm.metadata.labels?.[INPUT_LABEL] === 'true');
    if (inputs.length !== fleet.objectsPerWorkspace) problems.push(`${ws.name}: ${inputs.length} inputs, expected ${fleet.objectsPerWorkspace}`);
    for (const x of inputs) {
      const out = byName.get(`${x.metadata.name}-out`);
      if (out === undefined) problems.push(`${ws.name}/${x.metadata.name}-out missing`);
      else if (!isDeepStrictEqual(out.data ?? {}, x.data ?? {})) problems.push(`${ws.name}/${x.metadata.name}-out: data differs (gen ${out.data?.gen ?? '-'} vs ${x.data?.gen ?? '-'})`);
      else if (out.metadata.annotations?.[SOURCE_ANNOTATION] !== x.metadata.name) problems.push(`${ws.name}/${x.metadata.name}-out: annotation ${SOURCE_ANNOTATION} missing or wrong`);
    }
    const outputs = items.filter((cm) => cm.metadata.name.endsWith('-out'));
    if (outputs.length !== inputs.length) problems.push(`${ws.name}: ${outputs.length} outputs for ${inputs.length} inputs`);
  }
  return problems;
}

// Shared pieces of the provider-engine marble tests: an engine configuration in virtual time and a
// one-line description of each fleet event and report.
import type { EngageConfig } from '../../src/providers/internal/engage.js';
import type { FleetEvent } from '../../src/streams/cluster.js';
import type { ContactProbe } from '../../src/streams/provider-options.js';

/** `+a`, `-a (why)`, and a report as `!type subject: reason`. */
export function describeEv(ev: FleetEvent): string {
  if (ev.type === 'engaged') return `+${ev.cluster.name}`;
  if (ev.type === 'disengaged') return `-${ev.cluster} (${ev.reason ?? ''})`;
  const r = ev.report;
  if (r.type === 'discovered') return `!discovered ${r.clusters}/${r.candidates}`;
  const subject = 'cluster' in r ? r.cluster : 'candidate' in r ? r.candidate : '';
  return `!${r.type} ${subject}${'reason' in r ? `: ${r.reason}` : ''}`;
}

/** The engine's options for a test: provider `test`, probe timeout 5 ms, retry every 10 ms, removal reason `gone`. */
export function engineConfig(scheduler: EngageConfig['scheduler'], probe?: ContactProbe): EngageConfig {
  return { provider: 'test', scheduler, probe, probeTimeoutMs: 5, retryIntervalMs: 10, removedReason: 'gone' };
}

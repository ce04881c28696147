// The peer benchmark's controller on rxfleet (bench/peer/driver.ts runs it; bench/peer/mcr/main.go
// is the same controller on multicluster-runtime). For every ConfigMap `x` labelled
// bench.rxfleet.io/input=true in every cluster, read from the cache (the request carries it),
// server-side apply `x-out`: the same data plus the annotation bench.rxfleet.io/source=x.
// Concurrency 10, no client-side rate limits (rxfleet has none by default). It also watches its
// outputs, each change mapped to its input (a controller that corrects drift does): the cache that
// lets a restart over converged outputs send no apply (BENCH_RXFLEET_OUTPUTS=0 turns it off).
// BENCH_METRICS_PORT serves its metrics there (the driver reads them to know a restart is done).
//
//   node --import ./bench/register.ts bench/peer/rxfleet-controller.ts file <kubeconfig dir>
//   node --import ./bench/register.ts bench/peer/rxfleet-controller.ts file-http1 <kubeconfig dir>
//   node --import ./bench/register.ts bench/peer/rxfleet-controller.ts apiexport <provider kubeconfig> <export name>
import { configMaps, controller, done, main, objectKey, toAction } from '../../src/index.js';
import { mapToKeys } from '../../src/operators/index.js';
import type { Provider } from '../../src/index.js';
import { kubeconfigFileProvider } from '../../src/providers/file/index.js';
import { apiExportProvider } from '../../src/providers/kcp/index.js';
import { apply } from '../../src/sinks/index.js';

const INPUT_LABEL = 'bench.rxfleet.io/input';
const SOURCE_ANNOTATION = 'bench.rxfleet.io/source';

const args = process.argv.slice(2);
const PER_CLUSTER = process.env.BENCH_PER_CLUSTER === undefined ? undefined : Number(process.env.BENCH_PER_CLUSTER);
const WATCH_OUTPUTS = process.env.BENCH_RXFLEET_OUTPUTS !== '0';
const METRICS_PORT = process.env.BENCH_METRICS_PORT === undefined ? undefined : Number(process.env.BENCH_METRICS_PORT);

function providerFromArgs(): Provider {
  const [kind, a, b] = args;
  if (kind === 'file' && a !== undefined) return kubeconfigFileProvider({ paths: [a], globs: ['*.kubeconfig'] });
  // The other transport (issue 14 item 4): HTTP/1.1 keep-alive connections of each cluster's own
  // instead of the HTTP/2 session every workspace on the one kcp shares by default.
  if (kind === 'file-http1' && a !== undefined) return kubeconfigFileProvider({ paths: [a], globs: ['*.kubeconfig'], client: { http2: false } });
  if (kind === 'apiexport' && a !== undefined && b !== undefined) return apiExportProvider({ management: () => ({ file: a }), exportName: b });
  process.stderr.write('usage: rxfleet-controller.ts file <kubeconfig dir> | file-http1 <kubeconfig dir> | apiexport <provider kubeconfig> <export>\n');
  process.exit(2);
}

void main(
  () =>
    controller({
      name: 'bench-peer',
      provider: providerFromArgs(),
      resource: configMaps,
      select: { labelSelector: `${INPUT_LABEL}=true` },
      // BENCH_PER_CLUSTER sets the per-cluster cap (default 10 - 1 = 9; MCR's queue has none).
      ...(WATCH_OUTPUTS
        ? {
            inputs: ({ fleetWatch }) => [
              fleetWatch(configMaps, { labelSelector: `!${INPUT_LABEL}` }).pipe(
                mapToKeys(configMaps, (ev) => (ev.key.name.endsWith('-out') ? [objectKey(ev.key.cluster, ev.key.namespace, ev.key.name.slice(0, -'-out'.length))] : [])),
              ),
            ],
          }
        : {}),
      queue: { concurrency: 10, ...(PER_CLUSTER === undefined ? {} : { perClusterConcurrency: PER_CLUSTER }) },
      reconcile: (req, ctx) => {
        const x = req.object;
        if (x === undefined) return done();
        const name = req.key.name;
        const out = {
          metadata: { name: `${name}-out`, namespace: req.key.namespace, annotations: { [SOURCE_ANNOTATION]: name } },
          data: x.data ?? {},
        };
        return apply(ctx.sinks, { cluster: req.cluster, resource: configMaps, object: out }).pipe(toAction());
      },
    }),
  { http: METRICS_PORT === undefined ? false : { port: METRICS_PORT } },
);

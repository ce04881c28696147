// The smallest rxfleet controller: every ConfigMap named `greeting` in any cluster of the fleet
// gets `data.reply` set to a hello from that cluster. Run: node main.js NAMESPACE KUBECONFIG...
import { configMaps, controller, done, main, toAction } from 'rxfleet';
import { clusterListProvider } from 'rxfleet/providers/clusters';
import { apply } from 'rxfleet/sinks';

const [namespace = 'default', ...files] = process.argv.slice(2);

void main(() =>
  controller({
    name: 'hello',
    provider: clusterListProvider(files.map((file, i) => ({ name: `cluster-${i}`, kubeconfig: { file } }))),
    resource: configMaps,
    select: { namespace, fieldSelector: 'metadata.name=greeting' },
    writes: [{ resource: configMaps, namespace }], // for `rxfleet rbac`: it server-side applies the reply
    reconcile: (req, ctx) => {
      if (req.object === undefined) return done(); // deleted: nothing to do
      const reply = { metadata: { name: 'greeting', namespace }, data: { reply: `hello from ${req.cluster}` } };
      return apply(ctx.sinks, { cluster: req.cluster, resource: configMaps, object: reply }).pipe(toAction());
    },
  }),
);

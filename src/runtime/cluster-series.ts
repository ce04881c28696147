// Which series each cluster has written, so that all of them can go when the cluster leaves.
// prom-client removes a series only by its full label set, and a departed cluster's counters and
// histograms would otherwise stay in /metrics forever (about 1.8 KB per cluster name before
// histograms became opt-in). What is held is bounded by the label values actually written.

/** A metric whose series can be removed by label set (prom-client's Counter, Gauge and Histogram). */
interface Removable {
  remove(labels: Readonly<Record<string, string>>): void;
}

/**
 * The label sets written per cluster, per metric.
 *
 * @example
 * ```ts
 * const series = new ClusterSeries();
 * series.note(writes, 'writes', { cluster: 'east', verb: 'apply', result: 'ok' });
 * series.forget('east'); // writes.remove({ cluster: 'east', verb: 'apply', result: 'ok' })
 * ```
 */
export class ClusterSeries {
  private readonly byCluster = new Map<string, Map<string, { readonly metric: Removable; readonly labels: Readonly<Record<string, string>> }>>();

  /** Clusters with at least one series. @example `series.clusters` @returns the count. */
  get clusters(): number {
    return this.byCluster.size;
  }

  /**
   * Records that `metric` has a series with these labels (call it on every write: it is cheap
   * once the series is known).
   *
   * @example `series.note(reconciles, 'reconciles', { cluster: o.cluster, result: o.result })`
   * @param metric - the metric written.
   * @param name - a name for the metric, unique among the metrics noted here.
   * @param labels - the series' full label set, `cluster` included.
   */
  note(metric: Removable, name: string, labels: Readonly<Record<string, string>> & { readonly cluster: string }): void {
    let mine = this.byCluster.get(labels.cluster);
    if (mine === undefined) {
      mine = new Map();
      this.byCluster.set(labels.cluster, mine);
    }
    // NUL cannot occur in a metric name; label values are joined in the caller's fixed key order.
    const id = `${name}\0${Object.values(labels).join('\0')}`;
    if (!mine.has(id)) mine.set(id, { metric, labels });
  }

  /**
   * Removes every series noted for a cluster, and forgets them.
   *
   * @example `series.forget(cluster)`
   * @param cluster - the cluster that left.
   */
  forget(cluster: string): void {
    const mine = this.byCluster.get(cluster);
    if (mine === undefined) return;
    this.byCluster.delete(cluster);
    for (const { metric, labels } of mine.values()) metric.remove(labels);
  }
}

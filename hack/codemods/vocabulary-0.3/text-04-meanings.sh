#!/bin/sh
# Text for rules-04-meanings. ClusterIdentity's `source` became `from`: identity literals the
# type-aware rename cannot see (built before they meet the type) are `{ provider: …, source: … }`
# everywhere, code and docs. The rest is comments and docs.
files=$(git ls-files '*.md' '*.ts' | grep -v -e '^CHANGELOG.md$' -e '^etc/api/' -e '^src/resources/')
ts=$(git ls-files '*.ts' | grep -v -e '^etc/api/' -e '^src/resources/')
perl -pi -e '
  s/(\bprovider: [^,{}]+?, )source: /$1from: /g;
  s/\bWatchSource\b/ListerWatcher/g;
  s/\bclusterWatchSource\b/clusterListerWatcher/g;
  s/\bSinkFleet\b/SinkClusters/g;
  s/\bFleetOptions\b/DiscoveryOptions/g;
  s/\bPublishedSource\b/PublishedCrd/g;
' $files
perl -pi -e 'if (/^\s*(\*|\/\/|\/\*\*)/) {
  s/\bProbe\b/ContactProbe/g;
  s/\bsinkFleet\b/sinkClusters/g;
}' $ts

#!/bin/sh
# Text for rules-03-spellings: Kubeconfig, logger, cluster, retryAfterMs, …At in comments and docs.
# In .ts files only comment lines are touched (code was renamed by the type-aware codemod; a test
# helper may keep an old-looking name of its own, e.g. client-node's KubeConfig).
ts=$(git ls-files '*.ts' | grep -v -e '^etc/api/')
md=$(git ls-files '*.md' | grep -v -e '^CHANGELOG.md$' -e '^etc/api/')
common='
  s/\bKubeConfigSource\b/KubeconfigSource/g;
  s/\bKubeConfigLike\b/KubeconfigLike/g;
  s/\bloadKubeConfig\b/loadKubeconfig/g;
  s/\bauthFromKubeConfig\b/authFromKubeconfig/g;
  s/\bloadProviderKubeConfig\b/loadProviderKubeconfig/g;
  s/\{ kubeConfig: /{ loaded: /g;
  s/\b(ctx|context)\.log\b/$1.logger/g;
  s/\bretryInMs\b/retryAfterMs/g;
'
perl -pi -e "if (/^\s*(\*|\/\/|\/\*\*)/) { $common }" $ts
perl -pi -e "$common"'
  s/\bfailingSince\b/failingSinceAt/g;
  s/\bclusterNames: \[/clusters: [/g;
  s/\[c\.start, c\.signal\.aborted\]/[c.startedAt, c.signal.aborted]/g;
  s/a timeout keeps a sink waiting `afterMs` of scheduler/a timeout keeps a sink waiting `timeoutMs` of scheduler/g;
' $md

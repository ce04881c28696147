#!/bin/sh
# Text for rules-05-options: option type names, watchOptions, runController's queue, and the
# management cluster of the providers, in comments and docs (code lines of .ts are left alone).
ts=$(git ls-files '*.ts' | grep -v -e '^etc/api/' -e '^src/resources/')
md=$(git ls-files '*.md' | grep -v -e '^CHANGELOG.md$' -e '^etc/api/')
common='
  s/\bBackoffConfig\b/Backoff/g;
  s/\bRateLimitConfig\b/RateLimit/g;
  s/\bInformersConfig\b/InformersOptions/g;
  s/\bSplitCacheConfig\b/SplitCacheOptions/g;
  s/\bSplitWatchesConfig\b/SplitWatchesOptions/g;
  s/\bWatchMachineConfig\b/WatchSignalsOptions/g;
  s/\bWatchConfig\b/WatchStreamOptions/g;
  s/\bWatchSettings\b/WatchesOptions/g;
  s/\bDebounceByKeyConfig\b/DebounceByKeyOptions/g;
  s/\bFanOutConfig\b/FanOutOptions/g;
  s/\bFinalizerConfig\b/WithFinalizerOptions/g;
  s/\bReconcileConfig\b/ReconcileOptions/g;
  s/\bEventRecorderConfig\b/EventRecorderOptions/g;
  s/\bRetryConfig\b/RetryOptions/g;
  s/\bSinkConfig\b/SinkContextOptions/g;
  s/\bSinkOperatorConfig\b/SinkOperatorOptions/g;
  s/\bPathResolverConfig\b/PathResolverOptions/g;
  s/\bControllerRunConfig\b/RunControllerOptions/g;
  s/\bInMemoryFleetConfig\b/InMemoryFleetOptions/g;
  s/\bwatchConfig\b/watchOptions/g;
  s/\breconcileConfig\b/queue/g;
  s/\b(clusterApiProvider|clusterProfileProvider|kubeconfigSecretProvider|namespaceProvider)\(\{ cluster: /$1({ management: /g;
  s/\b(apiExportProvider|initializingWorkspaceProvider)\(\{ kubeconfig: /$1({ management: /g;
'
perl -pi -e "if (/^\s*(\*|\/\/|\/\*\*)/) { $common }" $ts
perl -pi -e "$common" $md

// The peer benchmark's controller on multicluster-runtime (bench/peer/driver.ts runs it).
//
// For every ConfigMap `x` labelled bench.rxfleet.io/input=true in every cluster the file
// provider finds (one kubeconfig per kcp workspace), read `x` from the cache and server-side
// apply `x-out`: the same data plus the annotation bench.rxfleet.io/source=x. Concurrency 10.
// Client-side rate limits are off (QPS -1, as ctrl.GetConfig() sets) unless -qps is given.
// The cache holds only inputs (label selector), as the rxfleet controller watches only inputs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager/signals"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/file"
)

const (
	inputLabel       = "bench.rxfleet.io/input"
	sourceAnnotation = "bench.rxfleet.io/source"
	fieldOwner       = "bench-peer"
)

func main() {
	dir := flag.String("kubeconfig-dir", "", "directory of per-workspace *.kubeconfig files")
	local := flag.String("local-kubeconfig", "", "kubeconfig for the manager's local cluster (mcmanager.New needs one)")
	qps := flag.Float64("qps", -1, "client-side QPS per cluster; -1 turns the limiter off (ctrl.GetConfig's choice); 0 keeps client-go's default 5")
	concurrency := flag.Int("concurrency", 10, "MaxConcurrentReconciles")
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseDevMode(false), zap.Level(zapcore.ErrorLevel)))
	if *dir == "" || *local == "" {
		fmt.Fprintln(os.Stderr, "mcr-peer: -kubeconfig-dir and -local-kubeconfig are required")
		os.Exit(2)
	}
	if err := run(signals.SetupSignalHandler(), *dir, *local, float32(*qps), *concurrency); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(os.Stderr, "mcr-peer: %v\n", err)
		os.Exit(1)
	}
}

// withQPS sets the rate limit on a copy of the config, the only place a file-provider cluster's
// clients can be reached: the provider builds rest.Configs from kubeconfigs (QPS 0 = 5/s).
func withQPS(cfg *rest.Config, qps float32) *rest.Config {
	c := rest.CopyConfig(cfg)
	if qps != 0 {
		c.QPS = qps
	}
	return c
}

func run(ctx context.Context, dir, local string, qps float32, concurrency int) error {
	localCfg, err := clientcmd.BuildConfigFromFlags("", local)
	if err != nil {
		return fmt.Errorf("local kubeconfig %s: %w", local, err)
	}
	localCfg.QPS = -1
	selector := labels.SelectorFromSet(labels.Set{inputLabel: "true"})
	provider, err := file.New(file.Options{
		KubeconfigDirs:  []string{dir},
		KubeconfigGlobs: []string{"*.kubeconfig"},
		ClusterOptions: []cluster.Option{func(o *cluster.Options) {
			o.Cache.DefaultLabelSelector = selector
			o.NewCache = func(cfg *rest.Config, opts cache.Options) (cache.Cache, error) {
				return cache.New(withQPS(cfg, qps), opts)
			}
			o.NewClient = func(cfg *rest.Config, opts client.Options) (client.Client, error) {
				return client.New(withQPS(cfg, qps), opts)
			}
			o.MapperProvider = func(cfg *rest.Config, hc *http.Client) (meta.RESTMapper, error) {
				return apiutil.NewDynamicRESTMapper(withQPS(cfg, qps), hc)
			}
		}},
	})
	if err != nil {
		return err
	}
	mgr, err := mcmanager.New(localCfg, provider, ctrl.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
	})
	if err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	err = mcbuilder.ControllerManagedBy(mgr).
		Named("peer-configmaps").
		For(&corev1.ConfigMap{}).
		WithOptions(controller.TypedOptions[mcreconcile.Request]{MaxConcurrentReconciles: concurrency}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return ctrl.Result{}, err
			}
			cm := &corev1.ConfigMap{}
			if err := cl.GetCache().Get(ctx, req.NamespacedName, cm); err != nil {
				if apierrors.IsNotFound(err) {
					return ctrl.Result{}, nil
				}
				return ctrl.Result{}, err
			}
			out := corev1ac.ConfigMap(cm.Name+"-out", cm.Namespace).
				WithAnnotations(map[string]string{sourceAnnotation: cm.Name}).
				WithData(cm.Data)
			return ctrl.Result{}, cl.GetClient().Apply(ctx, out, client.FieldOwner(fieldOwner), client.ForceOwnership)
		}))
	if err != nil {
		return fmt.Errorf("controller: %w", err)
	}
	return mgr.Start(ctx)
}

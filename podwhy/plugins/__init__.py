"""kube-scheduler's in-tree plugins (pkg/scheduler/framework/plugins), one module or package per plugin."""

"""pkg/apis/*/validation: the API server's validation of the pods and workloads it creates."""

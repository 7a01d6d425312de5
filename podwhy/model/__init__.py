"""The typed Kubernetes objects podwhy reads (k8s.io/api), with quantities and well-known names."""

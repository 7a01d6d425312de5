"""What Kubernetes keeps in k8s.io/component-helpers and k8s.io/apimachinery, below the framework."""

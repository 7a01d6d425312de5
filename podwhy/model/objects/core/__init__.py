"""The core API group (v1), one module per area of Kubernetes' core/v1 types.go: `pod`, `volume`, `node` and `other`."""

"""The kube-controller-manager's controllers, where podwhy stands in for them: one module per controller."""

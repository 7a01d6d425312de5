"""What the rest of Kubernetes does around the scheduler, where podwhy stands in for it: the API
server's admission of manifests, the controllers that turn workloads into pods (and the PV and
resource-claim controllers), the kubelet's admission, template nodes, and `check`'s placement."""

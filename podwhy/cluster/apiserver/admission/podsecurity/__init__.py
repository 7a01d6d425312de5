"""k8s.io/pod-security-admission: PodSecurity admission of pods (api/, policy/, admission/)."""

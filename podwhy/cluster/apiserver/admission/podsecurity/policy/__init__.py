"""pod-security-admission's policy/: the Pod Security Standards' checks, each by level and version."""

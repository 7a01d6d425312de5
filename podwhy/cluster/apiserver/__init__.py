"""The kube-apiserver, where podwhy stands in for it: defaulting, validation, warnings, admission."""

"""The API server's admission plugins (plugin/pkg/admission), one module each, and their chains in upstream's order."""

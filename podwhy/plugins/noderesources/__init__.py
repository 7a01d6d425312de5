"""Node resources plugins: NodeResourcesFit (and, later, its scoring strategies)."""

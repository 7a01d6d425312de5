"""The readers: a cluster's objects from the API server (client-go's part) or from dumps, into one Snapshot."""

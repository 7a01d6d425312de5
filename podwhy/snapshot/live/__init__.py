"""The API server as a snapshot source (live mode): `source` lists it, `kubeconfig` connects as
kubectl does, `errors` words a request that gets no answer."""

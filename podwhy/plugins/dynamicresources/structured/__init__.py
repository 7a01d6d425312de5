"""Structured-parameters device allocation, as k8s.io/dynamic-resource-allocation/structured does it.

- `allocator.py`: the search (Allocator, one Allocate call per node) and its results;
- `types.py`: device IDs, consumed capacity, the errors, a claim's key;
- `requests.py`: a request or firstAvailable subrequest as the allocator reads it;
- `pools.py`: the resource pools a node reaches;
- `constraints.py`: matchAttribute and distinctAttribute;
- `counters.py` (DRAPartitionableDevices), `consumable_capacity.py` (DRAConsumableCapacity),
  `taints.py` (DRADeviceTaints): what the feature gates add;
- `describe.py`: per request, the matching and free devices, for the report.

Device selectors are run by the sibling `cel` package.
"""

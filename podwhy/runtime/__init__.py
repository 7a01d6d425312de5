"""The framework runtime: runs a profile's plugins over a snapshot and returns a typed outcome
(upstream's pkg/scheduler/framework/runtime and the scheduling cycle of schedule_one.go)."""

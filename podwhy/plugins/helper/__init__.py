"""What the plugins share (pkg/scheduler/framework/plugins/helper): score normalization and shaping, volumes."""

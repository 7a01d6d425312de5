"""The report built: facts in, report.model out, one module per command."""

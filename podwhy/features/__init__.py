"""Feature gates and the emulated releases (upstream's pkg/features): what each release turns on and changes."""

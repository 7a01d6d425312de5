"""podwhy's voice: the typed report (model), its words, its building from facts, and its rendering."""

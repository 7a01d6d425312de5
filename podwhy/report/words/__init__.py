"""podwhy's sentences, one module per area of analysis: the analysis finds typed facts, these
modules say them."""

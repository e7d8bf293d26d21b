"""Support package for the workshop series "Agent memory and hybrid retrieval on Oracle AI Database 26ai"."""

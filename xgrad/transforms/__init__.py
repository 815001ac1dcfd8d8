"""The transforms: each is a Trace subclass plus its user function(s)."""

"""Builders of test data shared by the whole suite: bundles, worlds and scoring inputs, with defaults
that any test overrides by keyword."""

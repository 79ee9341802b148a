"""Benchmarks that print figures for the README. Run each as a module: python -m bench.NAME."""

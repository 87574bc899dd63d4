"""Benchmarks: one command each, printing figures (`python -m benchmarks.<name>`)."""

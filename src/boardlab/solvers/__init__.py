"""Exact solvers."""

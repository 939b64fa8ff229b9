"""The huge planning case: a table of ten million data files in ten thousand manifests.

Run it with ``make bench-plan-huge`` from the repository root; see bench/README.md.
"""

"""Planning benchmark: iceflight's GetFlightInfo against PyIceberg's plan_files.

Run it with ``make bench-plan`` from the repository root; see bench/README.md.
"""

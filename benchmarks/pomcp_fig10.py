"""POMCP vs bluffing one-third (Fig. 10 setting, fewer dice): a thin wrapper around
``ldpomdp sweep --experiment pomcp_fig10``.

    python benchmarks/pomcp_fig10.py [--quick] [--workers N] [--scheduler ADDR] [--out DIR] [--games N] [--seed S]

Report 002 found: (no POMCP in report 002; its expected-count POMDP at 15 dice: see fig10).
Writes results/pomcp_fig10/ (games.jsonl, summary.csv, plots); re-running resumes.
"""

import sys

from ldpomdp.cli import main

if __name__ == "__main__":
    sys.exit(main(["sweep", "--experiment", "pomcp_fig10", *sys.argv[1:]]))

"""POMCP vs one-third (Fig. 4 setting): a thin wrapper around ``ldpomdp sweep --experiment pomcp_fig4``.

    python benchmarks/pomcp_fig4.py [--quick] [--workers N] [--scheduler ADDR] [--out DIR] [--games N] [--seed S]

Report 002 found: (no POMCP in report 002; its expected-count POMDP: see fig4).
Writes results/pomcp_fig4/ (games.jsonl, summary.csv, plots); re-running resumes.
"""

import sys

from ldpomdp.cli import main

if __name__ == "__main__":
    sys.exit(main(["sweep", "--experiment", "pomcp_fig4", *sys.argv[1:]]))

"""expected-count vs one-third (report 002 Fig. 4): a thin wrapper around ``ldpomdp sweep --experiment fig4``.

    python benchmarks/fig4.py [--quick] [--workers N] [--scheduler ADDR] [--out DIR] [--games N] [--seed S]

Report 002 found: POMDP ~50% at 2-4 dice, >60% from 7 dice, ~80% at 35 dice.
Writes results/fig4/ (games.jsonl, summary.csv, plots); re-running resumes.
"""

import sys

from ldpomdp.cli import main

if __name__ == "__main__":
    sys.exit(main(["sweep", "--experiment", "fig4", *sys.argv[1:]]))

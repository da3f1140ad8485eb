"""expected-count vs two one-third (report 002 Fig. 6): a thin wrapper around ``ldpomdp sweep --experiment fig6``.

    python benchmarks/fig6.py [--quick] [--workers N] [--scheduler ADDR] [--out DIR] [--games N] [--seed S]

Report 002 found: POMDP above 33% and rising with dice.
Writes results/fig6/ (games.jsonl, summary.csv, plots); re-running resumes.
"""

import sys

from ldpomdp.cli import main

if __name__ == "__main__":
    sys.exit(main(["sweep", "--experiment", "fig6", *sys.argv[1:]]))

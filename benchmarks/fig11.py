"""expected-count with 10% injection vs bluffing one-third, 15 dice (report 002 Fig. 11): a thin wrapper around
``ldpomdp sweep --experiment fig11``.

    python benchmarks/fig11.py [--quick] [--workers N] [--scheduler ADDR] [--out DIR] [--games N] [--seed S]

Report 002 found: POMDP rises with bluff, average ~50%.
Writes results/fig11/ (games.jsonl, summary.csv, plots); re-running resumes.
"""

import sys

from ldpomdp.cli import main

if __name__ == "__main__":
    sys.exit(main(["sweep", "--experiment", "fig11", *sys.argv[1:]]))

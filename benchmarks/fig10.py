"""expected-count vs bluffing one-third, 15 dice (report 002 Fig. 10): a thin wrapper around
``ldpomdp sweep --experiment fig10``.

    python benchmarks/fig10.py [--quick] [--workers N] [--scheduler ADDR] [--out DIR] [--games N] [--seed S]

Report 002 found: POMDP falls as bluff rises but stays above 50% (average ~55%).
Writes results/fig10/ (games.jsonl, summary.csv, plots); re-running resumes.
"""

import sys

from ldpomdp.cli import main

if __name__ == "__main__":
    sys.exit(main(["sweep", "--experiment", "fig10", *sys.argv[1:]]))

"""one-third vs one-third (report 002 Fig. 2): a thin wrapper around ``ldpomdp sweep --experiment fig2``.

    python benchmarks/fig2.py [--quick] [--workers N] [--scheduler ADDR] [--out DIR] [--games N] [--seed S]

Report 002 found: about 50% at every dice count.
Writes results/fig2/ (games.jsonl, summary.csv, plots); re-running resumes.
"""

import sys

from ldpomdp.cli import main

if __name__ == "__main__":
    sys.exit(main(["sweep", "--experiment", "fig2", *sys.argv[1:]]))

"""3 players, 35 dice (report 002 Figs. 7-8): a thin wrapper around ``ldpomdp sweep --experiment fig7_8``.

    python benchmarks/fig7_8.py [--quick] [--workers N] [--scheduler ADDR] [--out DIR] [--games N] [--seed S]

Report 002 found: wins POMDP 52.7%, MDP1 22.9%, MDP2 24.4%; MDP1 challenged most.
Writes results/fig7_8/ (games.jsonl, summary.csv, plots); re-running resumes.
"""

import sys

from ldpomdp.cli import main

if __name__ == "__main__":
    sys.exit(main(["sweep", "--experiment", "fig7_8", *sys.argv[1:]]))

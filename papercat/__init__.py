"""papercat: plain-text listings of research papers in, a static catalog site out."""

import os

# The build spreads its work over processes, one per core (workers.py). The OpenBLAS of numpy and
# scipy would start threads of their own in each, which only contend for the same cores and spin
# while they wait: at 20,000 papers, related-paper scoring took 9.4 s of CPU with them and 5.5 s
# without, the map's principal components 2.1 s and 0.7 s. OpenBLAS reads this once, when numpy or
# scipy loads it (so before any papercat module imports them); a value the user set wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# TEMPORARY dev shim (not committed): replaced by the trees branch
import numpy as np
def tidy_layout(tree):
    n = len(tree); parent = tree.parent; cc = tree.child_count
    depth = np.zeros(n, np.int32)
    for i in range(1, n): depth[i] = depth[parent[i]] + 1
    x = np.zeros(n); leaf = np.flatnonzero(cc == 0); x[leaf] = np.arange(len(leaf))
    lo = np.full(n, np.inf); hi = np.full(n, -np.inf)
    for i in range(n - 1, 0, -1):
        if cc[i]: x[i] = (lo[i] + hi[i]) / 2
        p = parent[i]; lo[p] = min(lo[p], x[i]); hi[p] = max(hi[p], x[i])
    if n and cc[0]: x[0] = (lo[0] + hi[0]) / 2
    return x, depth.astype(np.float64)

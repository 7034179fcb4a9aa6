"""Comparison of two cross-match pair sets ({(i, j): separation_arcsec}), shared by the
integration tests against astropy and STILTS."""


from types import SimpleNamespace


def compare_pair_sets(ref, mine, radius):
    """Returns only_ref, only_mine, boundary (one-sided pairs whose separation lies within 1e-9
    arcsec of the radius, which different distance formulas may put either way), real (the
    one-sided pairs that are not boundary ones) and maxdiff (the largest separation difference
    over the common pairs)."""
    only_ref = set(ref) - set(mine)
    only_mine = set(mine) - set(ref)
    boundary = [p for p in only_ref if abs(ref[p] - radius) < 1e-9] + \
               [p for p in only_mine if abs(mine[p] - radius) < 1e-9]
    real = len(only_ref) + len(only_mine) - len(boundary)
    common = set(ref) & set(mine)
    maxdiff = max((abs(ref[p] - mine[p]) for p in common), default=0.0)
    return SimpleNamespace(only_ref=only_ref, only_mine=only_mine, boundary=boundary, real=real,
                           maxdiff=maxdiff)

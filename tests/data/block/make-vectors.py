#!/usr/bin/python3
# Reference values of Student's t upper tail and its inverse for
# tests/unit/test-block-test.c, from scipy (run offline; output committed).
# SPDX-License-Identifier: GPL-3.0-or-later
import scipy.stats as st

print("# t df sf   then   p df isf  (scipy %s)" % __import__("scipy").__version__)
for df in (1, 2, 2.5, 3, 5, 9.3, 30, 200):
    for t in (-3.0, -0.5, 0.0, 0.7, 1.5, 2.0, 4.0, 12.0):
        print("sf %r %r %r" % (t, df, st.t.sf(t, df)))
    for p in (0.4, 0.05, 0.025, 0.005, 1e-6):
        print("isf %r %r %r" % (p, df, st.t.isf(p, df)))

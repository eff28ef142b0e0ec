#!/usr/bin/env python3
# trim.py: a Firefox (Gecko) profile made small enough for tests/data, still valid
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: trim.py IN.json OUT.json --tids TID[,TID...] --process NAME
# Keeps the parent's meta and counters, the parent's threads with these
# tids, and the sub-processes whose first thread's processName is NAME;
# libraries, pages, sources and the profiling log are emptied, and marker
# payloads past each thread's first 100 markers cut to their "type". Every
# table a kept thread has stays whole. firefox-page.json.gz is
#   bench/record-firefox.sh f.json
#   trim.py f.json firefox-page.json --tids 9022 --process 'file:// Content'
#   gzip -9 firefox-page.json
# (the tid is that recording's smaller "DOM Worker" of the parent).

import argparse
import json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('inp')
    ap.add_argument('out')
    ap.add_argument('--tids', required=True)
    ap.add_argument('--process', required=True)
    args = ap.parse_args()
    tids = {int(t) for t in args.tids.split(',')}
    with open(args.inp) as f:
        p = json.load(f)
    kept = [sp for sp in p['processes'] if sp['threads'] and sp['threads'][0].get('processName') == args.process]
    for profile in [p] + kept:
        profile['libs'] = []
        profile['pages'] = profile.get('pages', [])[:2]
        profile['profilingLog'] = {}
        if 'sources' in profile:
            profile['sources'] = {'schema': {}, 'data': []}
    p['threads'] = [t for t in p['threads'] if t['tid'] in tids]
    p['processes'] = kept
    for profile in [p] + kept:
        for t in profile['threads']:
            for i, row in enumerate(t['markers']['data']):
                if i >= 100 and len(row) > 5 and isinstance(row[5], dict):
                    row[5] = {'type': row[5]['type']} if 'type' in row[5] else None
    with open(args.out, 'w') as f:
        json.dump(p, f, separators=(',', ':'))


if __name__ == '__main__':
    main()

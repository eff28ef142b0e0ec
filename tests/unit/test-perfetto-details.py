#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Perfetto slice details (issue 20): a slice of a Perfetto trace remembers
# its TracePacket's position, and tsl_slice_details_read() reads that packet
# back with its category and debug annotations, the interned names resolved
# as the packet's sequence defined them at that point of the file: after an
# incremental-state reset the same iids mean new names, another sequence's
# iids are its own, InternedData inside a compressed bundle counts, and an
# iid no earlier packet defined says so instead of guessing. A slice inside
# a compressed bundle has no position of its own and says that.
import json
import os
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perfetto_proto import (BEGIN, CLEARED, COMPRESSED, END, FLAGS, INSTANT,  # noqa: E402
                            INTERNED, SEQ, encode, event, packed, process_track,
                            thread_track, trace)

dump = os.path.join(os.environ['G_TEST_BUILDDIR'], 'event-details-dump')
tmp = tempfile.mkdtemp()
failures = []
env = {k: v for k, v in os.environ.items() if k not in ('DISPLAY', 'WAYLAND_DISPLAY')}
env['LC_ALL'] = 'C'


def check(what, cond, detail=''):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)
        if detail:
            print('     ' + str(detail)[:2000])


def entries(field, pairs):
    return [(field, [(1, iid), (2, name)]) for iid, name in pairs]


def cleared(seq, interned):
    return [(SEQ, seq), (FLAGS, CLEARED), (INTERNED, interned)]


NOT_DEFINED = '(interned id %d, not defined on this sequence before this packet)'
MS = 1000000
packets = [
    process_track(1, 10, 'app'), thread_track(2, 1, 10, 11, 'ui'), thread_track(3, 1, 10, 12, 'io'),
    cleared(1, entries(1, [(1, 'input'), (2, 'gfx')]) + entries(2, [(1, 'Dispatch'), (2, 'Draw')]) +
            entries(3, [(1, 'url'), (2, 'count')]) + entries(29, [(1, 'interned string')])),
    # Every kind of value, names interned and inline, a dictionary.
    event(1 * MS, 2, BEGIN, name_iid=1, extra=[
        (3, packed([1, 2])),
        (4, [(1, 1), (6, 'https://example.org/')]),
        (4, [(1, 2), (4, -5)]),
        (4, [(10, 'ratio'), (5, 2.5)]),
        (4, [(10, 'flag'), (2, 1)]),
        (4, [(10, 'big'), (3, 2**63 + 1)]),
        (4, [(10, 'ptr'), (7, 0xdead)]),
        (4, [(10, 's'), (17, 1)]),
        (4, [(10, 'dict'), (11, [(10, 'k'), (3, 7)]), (11, [(10, 'j'), (6, 'v')])]),
        (4, [(10, 'list'), (12, [(3, 1)]), (12, [(3, 2)])]),
    ]),
    event(2 * MS, 2, END),
    # The same iids after a reset: the new names.
    cleared(1, entries(1, [(1, 'net')]) + entries(2, [(1, 'Fetch')]) + entries(3, [(1, 'host')])),
    event(3 * MS, 2, BEGIN, name_iid=1, extra=[(3, 1), (4, [(1, 1), (6, 'a.example')])]),
    event(4 * MS, 2, END),
    # Undefined iids on this sequence: said so.
    event(5 * MS, 2, INSTANT, name='lonely', extra=[(3, 2), (4, [(1, 9), (3, 1)])]),
    # Another sequence's iid 1.
    cleared(2, entries(1, [(1, 'two')]) + entries(2, [(1, 'SeqTwo')])),
    event(6 * MS, 3, INSTANT, name_iid=1, seq=2, extra=[(3, 1)]),
    # InternedData in a deflate bundle, used by a later plain packet; the
    # bundle's own slice has no position in the file.
    [(COMPRESSED, zlib.compress(trace([
        cleared(3, entries(1, [(1, 'zipped')]) + entries(2, [(1, 'Unzipped')])),
        event(7 * MS, 3, INSTANT, name='inside', seq=3, extra=[(3, 1)]),
    ])))],
    event(8 * MS, 3, INSTANT, name_iid=1, seq=3, extra=[(3, 1), (22, 'inline-cat')]),
    # A packet that defines what it uses itself.
    event(9 * MS, 3, INSTANT, name_iid=5, seq=4, flags=CLEARED, extra=[(3, 5)]) +
    [(INTERNED, entries(1, [(5, 'own')]) + entries(2, [(5, 'Self')]))],
]
path = os.path.join(tmp, 'details.pftrace')
with open(path, 'wb') as f:
    f.write(trace(packets))

r = subprocess.run([dump, path], capture_output=True, text=True, env=env, timeout=120)
check('dump runs', r.returncode == 0, r.stderr)
rows = [json.loads(line) for line in r.stdout.splitlines()]
by_name = {row['name']: row for row in rows}
check('every slice dumped', sorted(by_name) == sorted(['Dispatch', 'Fetch', 'lonely', 'SeqTwo', 'inside',
                                                         'Unzipped', 'Self']), sorted(by_name))


def fields(name):
    row = by_name.get(name, {})
    return [tuple(x) for x in row.get('fields', [])] if 'fields' in row else row.get('error')


check('names, categories and every kind of value', fields('Dispatch') == [
    ('name', 'Dispatch'), ('cat', 'input,gfx'), ('ph', 'slice begin'),
    ('args.url', 'https://example.org/'), ('args.count', '-5'), ('args.ratio', '2.5'),
    ('args.flag', 'true'), ('args.big', str(2**63 + 1)), ('args.ptr', '0xdead'),
    ('args.s', 'interned string'), ('args.dict.k', '7'), ('args.dict.j', 'v'),
    ('args.list', '[1, 2]')], fields('Dispatch'))
check('after a reset the same iids are the new names',
      fields('Fetch') == [('name', 'Fetch'), ('cat', 'net'), ('ph', 'slice begin'),
                          ('args.host', 'a.example')], fields('Fetch'))
check('an iid never defined says so',
      fields('lonely') == [('name', 'lonely'), ('cat', NOT_DEFINED % 2), ('ph', 'instant'),
                           ('args.' + NOT_DEFINED % 9, '1')], fields('lonely'))
check('another sequence\'s iids are its own',
      fields('SeqTwo') == [('name', 'SeqTwo'), ('cat', 'two'), ('ph', 'instant')], fields('SeqTwo'))
check('InternedData inside a compressed bundle counts',
      fields('Unzipped') == [('name', 'Unzipped'), ('cat', 'zipped,inline-cat'), ('ph', 'instant')],
      fields('Unzipped'))
check('a packet\'s own InternedData counts',
      fields('Self') == [('name', 'Self'), ('cat', 'own'), ('ph', 'instant')], fields('Self'))
check('a slice inside a bundle has no position', by_name.get('inside', {}).get('offset') == -1 and
      'not known' in (by_name.get('inside', {}).get('error') or ''), by_name.get('inside'))

data = open(path, 'rb').read()
offsets = [row['offset'] for row in rows if row['offset'] >= 0]
check('each position is a packet key byte', all(data[o] == 0x0a for o in offsets), offsets)

if failures:
    print('%d failed' % len(failures))
    sys.exit(1)

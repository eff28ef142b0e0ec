#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# The docs name files that must exist, so they stay honest as code moves.
# In README.md and docs/*.md, inside `code spans` and fenced blocks:
# - every path starting with app/, tests/, bench/ or docs/ exists (a `*` is
#   a glob; a part in capitals such as FORMAT or HARNESS is a placeholder
#   for any name, tried only when the literal path does not exist; a
#   program such as bench/bench-render counts when its PATH.c exists);
# - every bare source file name (tsl-*, test-*, bench-*, fuzz-*, gen-* ending
#   in .c, .h, .py or .sh), with or without a folder, names a file of that
#   name under app/, tests/ or bench/ whose path ends the same way.
# Relative Markdown links must reach an existing file, and a #fragment into
# a Markdown file one of its headings.
# A section introduced by a line `<!-- lands with branch NAME -->` describes
# work merged later and is skipped up to the next heading of its level or
# above.
import glob
import os
import re
import sys

top = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))

PREFIXES = ('app/', 'tests/', 'bench/', 'docs/')
TOKEN = re.compile(r"[A-Za-z0-9_./*…+-]+")
BARE = re.compile(r'^(?:[\w.*-]+/)*(?:tsl|test|bench|fuzz|gen)-[\w*.-]*\.(?:c|h|py|sh)$')
MARKER = re.compile(r'^\s*<!--\s*lands with branch\s+[\w.-]+\s*-->\s*$')
HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')
LINK = re.compile(r'\]\(([^)\s]+)\)')


def slug(heading):
    """GitHub's anchor for a heading."""
    text = re.sub(r'[`*_]', '', heading).strip().lower()
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


def live_lines(text):
    """(line number, line, in_fence) for the lines outside marked sections."""
    out = []
    skip_level = None      # skipping until a heading of this level or above
    pending = False        # a marker was seen; its heading sets the level
    fence = False
    for n, line in enumerate(text.splitlines(), 1):
        if MARKER.match(line):
            pending = True
            skip_level = 7
            continue
        h = HEADING.match(line) if not fence else None
        if h:
            level = len(h.group(1))
            if pending:
                skip_level = level
                pending = False
                continue
            if skip_level is not None and level <= skip_level:
                skip_level = None
        if line.lstrip().startswith('```'):
            fence = not fence
            if skip_level is None:
                out.append((n, line, True))
            continue
        if skip_level is None:
            out.append((n, line, fence))
    return out


def code_text(line, in_fence):
    if in_fence:
        return [line]
    return re.findall(r'`([^`]+)`', line)


def candidates(path):
    yield path
    placeholder = re.sub(r'[A-Z][A-Z0-9_]{2,}', '*', path)
    if placeholder != path:
        yield placeholder


def exists(root, path):
    for p in candidates(path):
        if glob.glob(os.path.join(root, p)) or glob.glob(os.path.join(root, p + '.c')):
            return True
    return False


def source_files(root):
    found = []
    for base in ('app', 'tests', 'bench'):
        for dirpath, _, names in os.walk(os.path.join(root, base)):
            for name in names:
                found.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, '/'))
    return found


def bare_exists(files, token):
    for p in candidates(token):
        pattern = re.compile('(^|/)' + re.escape(p).replace(r'\*', '[^/]*') + '$')
        if any(pattern.search(f) for f in files):
            return True
    return False


def headings(path):
    text = open(path, encoding='utf-8').read()
    fence = False
    out = set()
    for line in text.splitlines():
        if line.lstrip().startswith('```'):
            fence = not fence
        h = HEADING.match(line) if not fence else None
        if h:
            out.add(slug(h.group(2)))
    return out


def check_doc(root, doc, files):
    problems = []
    rel = os.path.relpath(doc, root)
    text = open(doc, encoding='utf-8').read()
    checked = 0
    for n, line, in_fence in live_lines(text):
        for code in code_text(line, in_fence):
            for token in TOKEN.findall(code):
                token = token.rstrip('.…,:;')
                if token.startswith(PREFIXES):
                    checked += 1
                    if not exists(root, token):
                        problems.append(f'{rel}:{n}: {token} does not exist')
                elif BARE.match(token):
                    checked += 1
                    if not bare_exists(files, token):
                        problems.append(f'{rel}:{n}: no file {token} under app/, tests/ or bench/')
        if in_fence:
            continue
        for target in LINK.findall(line):
            if re.match(r'^[a-z]+:', target) or target.startswith('#'):
                continue
            path, _, fragment = target.partition('#')
            full = os.path.normpath(os.path.join(os.path.dirname(doc), path))
            checked += 1
            if not os.path.exists(full):
                problems.append(f'{rel}:{n}: link to {target}: no such file')
            elif fragment and full.endswith('.md') and fragment not in headings(full):
                problems.append(f'{rel}:{n}: link to {target}: no such heading')
    return problems, checked


def self_test():
    """The checker must catch a missing path and skip a marked section."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, 'app', 'core', 'read'))
        os.makedirs(os.path.join(d, 'docs'))
        open(os.path.join(d, 'app', 'core', 'read', 'tsl-csv-reader.c'), 'w').close()
        doc = os.path.join(d, 'docs', 'X.md')
        open(doc, 'w').write(
            '# X\n\n## Here\n`app/core/read/tsl-csv-reader.c` and `app/core/read/tsl-FORMAT-reader.c`\n'
            '```text\nread/tsl-csv-reader.c ─► tsl-gone.c\n```\n'
            'See `app/core/missing.c` and [here](#here), [x](X.md#here), [y](X.md#nowhere).\n'
            '<!-- lands with branch later -->\n## Later\n`app/core/later.c` tsl-later.c\n'
            '### Sub\n`app/core/later-too.c`\n## After\n`app/core/after.c`\n')
        problems, _ = check_doc(d, doc, source_files(d))
        text = '\n'.join(problems)
        assert 'tsl-gone.c' in text, problems
        assert 'app/core/missing.c' in text, problems
        assert 'X.md#nowhere' in text and 'X.md#here' not in text, problems
        assert 'app/core/after.c' in text, problems
        assert 'later' not in text, problems
        assert 'tsl-csv-reader.c' not in text and 'FORMAT' not in text, problems
        assert len(problems) == 4, problems


self_test()
docs = [os.path.join(top, 'README.md')] + sorted(glob.glob(os.path.join(top, 'docs', '*.md')))
files = source_files(top)
problems, checked = [], 0
for doc in docs:
    p, c = check_doc(top, doc, files)
    problems += p
    checked += c
assert checked > 100, f'only {checked} paths found in the docs'
if problems:
    print('docs name files that do not exist:\n' + '\n'.join(problems))
    sys.exit(1)
print(f'{checked} paths and links in {len(docs)} documents exist')

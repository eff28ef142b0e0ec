#!/usr/bin/env python3
# test-i18n-cli.py: the program run from its build tree speaks the user's
# language with the catalogues the build made (BUILD/po), not only once
# installed under the compiled-in locale directory.
#
# SPDX-License-Identifier: GPL-3.0-or-later

import os
import subprocess
import sys

timeslice = os.environ['TSL_TIMESLICE']
env = dict(os.environ, LANGUAGE='fr', LANG='C.UTF-8', LC_ALL='C.UTF-8')
proc = subprocess.run([timeslice, '--help'], capture_output=True, text=True, env=env, timeout=60)
ok = proc.returncode == 0 and 'Ouvrir des traces de profileur' in proc.stdout
print(('ok' if ok else 'not ok') + ' timeslice --help in French from the build tree' +
      ('' if ok else f' # {proc.stdout[:300]!r}'))
sys.exit(0 if ok else 1)

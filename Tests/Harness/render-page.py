#!/usr/bin/env python3
"""Print a page of a static site as headless Chromium renders it (the DOM after its scripts ran).

    render-page.py SITE PATH     e.g. render-page.py .build/api-docs/site /documentation/keyidkit/deviceids

SITE is served on a free port of 127.0.0.1 for the one page load: DocC's pages fetch their
content, which Chromium refuses on file:// addresses.
"""

import functools
import http.server
import subprocess
import sys
import threading

site, path = sys.argv[1], sys.argv[2]


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=site))
threading.Thread(target=server.serve_forever, daemon=True).start()
try:
    # Root has no user namespace sandbox to drop into; the page is our own, served locally.
    rendered = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--virtual-time-budget=20000", "--dump-dom", f"http://127.0.0.1:{server.server_port}{path}"],
        capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin", "HOME": "/tmp"})
finally:
    server.shutdown()
if rendered.returncode != 0:
    sys.stderr.write(rendered.stderr)
    sys.exit(rendered.returncode)
sys.stdout.write(rendered.stdout)

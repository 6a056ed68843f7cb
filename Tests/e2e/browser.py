"""Headless Chromium as an oracle for html-sanitize: it loads pages from a local server and
reports every script that ran (alert & co. are hooked), every navigation, and every request
the page made anywhere else (all other traffic goes through the same server as an HTTP proxy,
so nothing leaves the machine and nothing is missed)."""
import html
import json
import os
import shutil
import subprocess
import tempfile
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOOKS = """<script>
(function () {
  function report(kind, detail) {
    var x = new XMLHttpRequest();
    x.open('POST', '/report?kind=' + kind, false);
    try { x.send(kind == 'text' ? String(detail) : String(detail).slice(0, 300)); } catch (e) {}
  }
  ['alert', 'confirm', 'prompt', 'print', 'open'].forEach(function (n) {
    window[n] = function (a) { report('exec', n + '(' + a + ')'); };
  });
  window.addEventListener('beforeunload', function () { report('navigate', location.href); });
  window.__harness = report;
})();
</script>"""

# After the page: fire the events a user would cause on every element (so a surviving handler
# runs), and check every link and image URL as the browser itself resolved it.
PROBE = """<script>
(function () {
%EVENTS%  // a URL the browser cannot parse goes nowhere and loads nothing
  function scheme(url) { try { return new URL(url, location.href).protocol; } catch (e) { return 'unparsable'; } }
  document.querySelectorAll('a[href], area[href]').forEach(function (a) {
    var p = scheme(a.href);
    if (['http:', 'https:', 'mailto:', 'tel:', 'unparsable'].indexOf(p) < 0) window.__harness('badurl', a.outerHTML);
  });
  document.querySelectorAll('img[src]').forEach(function (img) {
    var p = scheme(img.src);
    if (['http:', 'https:', 'data:', 'cid:', 'unparsable'].indexOf(p) < 0) window.__harness('badurl', img.outerHTML);
  });
  %TEXT%
  document.body.insertAdjacentHTML('beforeend', '<p id="harness-' + 'end">end</p>');
})();
</script>"""

EVENTS = """  var events = ['mouseover', 'mouseenter', 'mousemove', 'focus', 'focusin', 'blur', 'mousedown', 'mouseup',
                'keydown', 'input', 'change', 'toggle', 'animationstart', 'transitionend', 'load', 'error', 'scroll'];
  var all = document.body.querySelectorAll('*');
  for (var i = 0; i < all.length; i++) {
    for (var j = 0; j < events.length; j++) {
      try { all[i].dispatchEvent(new Event(events[j])); } catch (e) {}
    }
  }
"""

TEXT = """document.querySelectorAll('.harness-case').forEach(function (c) {
    window.__harness('text', c.getAttribute('data-case') + '\\u0000' + c.innerText);
  });"""


# Chromium's own traffic (update checks, network time, sign-in), which no flag fully stops and
# no page asked for; exact host names, so a page's request elsewhere is never mistaken for it.
CHROMIUM_OWN_HOSTS = ("//clients2.google.com/", " clients2.google.com:", "//update.googleapis.com/",
                      " update.googleapis.com:", " accounts.google.com:", "//accounts.google.com/",
                      " optimizationguide-pa.googleapis.com:", " content-autofill.googleapis.com:",
                      ".gvt1.com/", ".gvt1.com:")


def chromium_path():
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    """A recording server and a way to load pages in Chromium through it."""

    def __init__(self):
        self.pages = {}
        self.events = []
        self.lock = threading.Lock()
        browser = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def record(self, kind, detail):
                if kind == "remote" and any(h in detail for h in CHROMIUM_OWN_HOSTS):
                    return
                with browser.lock:
                    browser.events.append((kind, detail))

            def do_GET(self):
                if self.path.startswith("/page/") and self.path[6:] in browser.pages:
                    body = browser.pages[self.path[6:]].encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                if self.path != "/favicon.ico":
                    self.record("remote", self.command + " " + self.path)
                self.send_error(404)

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length).decode("utf-8", "replace")
                if self.path.startswith("/report?kind="):
                    self.record(urllib.parse.unquote(self.path[len("/report?kind="):]), data)
                    self.send_response(204)
                    self.end_headers()
                    return
                self.record("remote", "POST " + self.path)
                self.send_error(404)

            do_HEAD = do_PUT = do_DELETE = do_OPTIONS = lambda self: (self.record("remote", self.command + " " + self.path), self.send_error(404))

            def do_CONNECT(self):
                self.record("remote", "CONNECT " + self.path)
                self.send_error(403)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.profile = tempfile.mkdtemp(prefix="mailpipe-chromium-")

    def close(self):
        self.server.shutdown()
        shutil.rmtree(self.profile, ignore_errors=True)

    def load(self, name, page, screenshot=None, timeout=120):
        """Loads `page` (HTML); returns (events, dumped DOM). Events are (kind, detail): exec,
        navigate, badurl, remote, text."""
        self.pages[name] = page
        with self.lock:
            self.events = []
        url = f"http://127.0.0.1:{self.port}/page/{name}"
        args = [chromium_path(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-default-apps", "--disable-domain-reliability", "--no-pings", "--mute-audio",
                "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,Translate,MediaRouter",
                f"--user-data-dir={self.profile}", f"--proxy-server=http://127.0.0.1:{self.port}",
                "--virtual-time-budget=3000", "--window-size=800,1200"]
        if screenshot:
            args += [f"--screenshot={screenshot}", url]
            subprocess.run(args, capture_output=True, timeout=timeout)
            return None
        r = subprocess.run(args + ["--dump-dom", url], capture_output=True, timeout=timeout)
        with self.lock:
            events = list(self.events)
        return events, r.stdout.decode("utf-8", "replace")


def case_page(cases, text=False, events=True):
    """One page holding each (id, html) in its own container, hooked and probed: user events
    fired on every element (unless not `events`), each case's visible text reported if `text`."""
    body = "".join(f'<div class="harness-case" data-case="{html.escape(str(i))}">{h}</div>\n' for i, h in cases)
    probe = PROBE.replace("%TEXT%", TEXT if text else "").replace("%EVENTS%", EVENTS if events else "")
    return f'<!DOCTYPE html><html><head><meta charset="utf-8">{HOOKS}</head><body>\n{body}{probe}</body></html>'


ORIGINALS_PROBE = """<script>
window.addEventListener('load', function () {
  document.querySelectorAll('iframe.harness-original').forEach(function (f) {
    var doc = f.contentDocument, body = doc && doc.body, key = f.getAttribute('data-case');
    window.__harness('text', key + '\\u0000' + (body ? body.innerText : ''));
    // the text of what is not shown: the outermost hidden elements of the body
    var hidden = [];
    if (body) body.querySelectorAll('*').forEach(function (e) {
      var style = doc.defaultView.getComputedStyle(e);
      if ((style.display == 'none' || style.visibility == 'hidden') && e.tagName != 'STYLE' && e.tagName != 'SCRIPT'
          && !(e.parentElement && e.parentElement.closest('[data-harness-hidden]'))) {
        e.setAttribute('data-harness-hidden', '');
        hidden.push(e.textContent);
      }
    });
    window.__harness('hidden', key + '\\u0000' + hidden.join('\\n'));
  });
  document.body.insertAdjacentHTML('beforeend', '<p id="harness-' + 'end">end</p>');
});
</script>"""


def originals_page(cases):
    """Each (id, html) as its own document in a sandboxed frame (scripts on, as in a browser,
    but no dialogs, forms or navigation), and the visible text of each reported on load."""
    frames = "".join(f'<iframe class="harness-original" data-case="{html.escape(str(i))}" '
                     f'sandbox="allow-same-origin allow-scripts" style="width:800px;height:600px" '
                     f'srcdoc="{html.escape(h, quote=True)}"></iframe>\n' for i, h in cases)
    return f'<!DOCTYPE html><html><head><meta charset="utf-8">{HOOKS}</head><body>{frames}{ORIGINALS_PROBE}</body></html>'


def texts(events, kind="text"):
    """The visible text each case reported ("hidden": the text of its hidden elements): {id: text}."""
    out = {}
    for k, detail in events:
        if k == kind:
            key, _, text = detail.partition("\u0000")
            out[key] = text
    return out


def finished(dom):
    """Whether the probe ran to its end (the marker is built at run time, so the script's own
    source does not contain it)."""
    return 'id="harness-end"' in dom

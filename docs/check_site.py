#!/usr/bin/python3
"""Loads every page of the built course site in headless Chromium and checks it.

    /usr/bin/python3 docs/check_site.py build/ci/docs/html --screenshots DIR

For each HTML page of the site, as a reader's browser shows it (file://, its
scripts run): no console error, no uncaught exception, no resource that fails
to load; every local link (<a href>) leads to a file that exists, and its
#anchor, if any, to an element of that page; every image loads. Each chapter
page (chapters/*/index.html) is saved whole as DIR/<slug>.jpg, and a
translated edition's as DIR/<language>-<slug>.jpg. The exit status
is 1 when anything is wrong, with one line per problem.

Needs only Python's standard library and Debian's chromium: it speaks the
DevTools protocol over Chromium's --remote-debugging-pipe (JSON messages, each
ended by a NUL byte, on file descriptors 3 and 4).

Requests to other hosts (MathJax from its CDN) are blocked, so that the check
is the same with or without a network: their failures are counted, not
reported.
"""

import argparse
import base64
import fcntl
import json
import os
import selectors
import shutil
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

# What a page may take to load, and how long its scripts get after the load
# event to report errors (furo's and the search page's run on load).
LOAD_TIMEOUT_S = 20
SETTLE_S = 0.15
WINDOW = (1280, 900)
# Chapter pages are 10,000 to 26,000 pixels tall: at half size a screenshot
# still shows the layout (a clipped table, a figure, overlapping labels) and
# costs a quarter of the rendering.
SHOT_SCALE = 0.5

# Read after the page has loaded: its links, its images, and the anchors it
# offers to links from other pages.
PAGE_FACTS_JS = """JSON.stringify({
  links: Array.from(document.querySelectorAll('a[href]'), a => a.href),
  images: Array.from(document.images, i => ({src: i.currentSrc || i.src, ok: i.complete && i.naturalWidth > 0})),
  anchors: Array.from(document.querySelectorAll('[id], a[name]'), e => e.id || e.name),
})"""


class Browser:
    """One headless Chromium, driven over the DevTools pipe."""

    def __init__(self, log_path):
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if not chromium:
            sys.exit("check_site: chromium is not installed (Debian: apt-get install chromium)")
        self.profile = tempfile.mkdtemp(prefix="launchlab-site-chromium.")
        args = [
            chromium,
            "--headless=new",
            "--remote-debugging-pipe",
            f"--user-data-dir={self.profile}",
            f"--window-size={WINDOW[0]},{WINDOW[1]}",
            "--hide-scrollbars",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-gpu",
            "--allow-file-access-from-files",
            "about:blank",
        ]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses its sandbox to root (CI runs as root)
        # Chromium reads commands from fd 3 and writes answers to fd 4. The
        # pipes are moved above the low numbers first so that the dup2 below
        # always makes a new, inheritable descriptor.
        to_chrome_r, to_chrome_w = (fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in os.pipe())
        from_chrome_r, from_chrome_w = (fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in os.pipe())
        self.pid = os.posix_spawn(
            chromium,
            args,
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
                (os.POSIX_SPAWN_OPEN, 1, str(log_path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
                (os.POSIX_SPAWN_DUP2, 1, 2),
                (os.POSIX_SPAWN_DUP2, to_chrome_r, 3),
                (os.POSIX_SPAWN_DUP2, from_chrome_w, 4),
            ],
        )
        for fd in (to_chrome_r, from_chrome_w):
            os.close(fd)
        self.out = to_chrome_w
        self.inp = from_chrome_r
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.inp, selectors.EVENT_READ)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def send(self, method, params=None, session=True, timeout=LOAD_TIMEOUT_S):
        """Sends one command and returns its result (events that arrive meanwhile are kept)."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.out, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            for reply in self._read(deadline):
                if reply.get("id") == self.next_id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error'].get('message')}")
                    return reply.get("result", {})
                self.events.append(reply)

    def wait_for(self, method, timeout):
        """Waits for an event of this kind; False when none came in time."""
        deadline = time.monotonic() + timeout
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method:
                    del self.events[i]
                    return True
            try:
                self.events.extend(self._read(deadline))
            except TimeoutError:
                return False

    def drain(self, seconds):
        """Collects the events that arrive within this many seconds."""
        deadline = time.monotonic() + seconds
        try:
            while True:
                self.events.extend(self._read(deadline))
        except TimeoutError:
            pass

    def _read(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(left):
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self.inp, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed its DevTools pipe (its log says why)")
            self.buffer += chunk
        *messages, self.buffer = self.buffer.split(b"\0")
        return [json.loads(m) for m in messages]

    def open_page(self):
        """Attaches to the first page target, with the events the check needs."""
        targets = self.send("Target.getTargets", session=False)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.send(
            "Target.attachToTarget", {"targetId": page["targetId"], "flatten": True}, session=False
        )["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send("Network.setBlockedURLs", {"urls": ["http://*", "https://*"]})

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=5)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        shutil.rmtree(self.profile, ignore_errors=True)


def problems_in_events(events, page):
    """The console errors, exceptions and failed loads among a page's events."""
    problems, external = [], set()
    urls = {e["params"]["requestId"]: e["params"]["request"]["url"] for e in events if e.get("method") == "Network.requestWillBeSent"}
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            problems.append(f"{page}: uncaught exception: {text}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            problems.append(f"{page}: console.{params['type']}: {text}")
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            entry = params["entry"]
            url = entry.get("url", "")
            if url and not url.startswith("file:"):
                external.add(url)
            else:
                problems.append(f"{page}: console error: {entry['text']} {url}".rstrip())
        elif method == "Network.loadingFailed" and params.get("blockedReason") is None:
            url = urls.get(params.get("requestId"), "")
            problems.append(f"{page}: {url or 'a resource'} failed to load: {params.get('errorText')}")
    return problems, external


def local_path(url):
    """The file a file:// URL names, and its #anchor; None for other URLs."""
    parts = urlsplit(url)
    if parts.scheme != "file":
        return None
    return Path(unquote(parts.path)), unquote(parts.fragment)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("site", type=Path, help="the built site (the folder with index.html)")
    parser.add_argument("--screenshots", type=Path, help="where to save each chapter page as <slug>.jpg")
    options = parser.parse_args()

    site = options.site.resolve()
    pages = sorted(site.rglob("*.html"))
    pages = [p for p in pages if "_sources" not in p.parts and "_static" not in p.parts]
    if not pages:
        sys.exit(f"check_site: no HTML pages in {site}")
    if options.screenshots:
        options.screenshots.mkdir(parents=True, exist_ok=True)

    started = time.monotonic()
    log = Path(tempfile.mkstemp(prefix="launchlab-site-chromium.", suffix=".log")[1])
    browser = Browser(log)
    problems, external = [], set()
    anchors = {}  # page -> the anchors it offers
    links = []  # (page, url)
    shots = 0
    try:
        browser.open_page()
        for path in pages:
            name = path.relative_to(site).as_posix()
            browser.events.clear()
            browser.send("Page.navigate", {"url": path.as_uri()})
            if not browser.wait_for("Page.loadEventFired", LOAD_TIMEOUT_S):
                problems.append(f"{name}: did not finish loading in {LOAD_TIMEOUT_S} s")
                continue
            # The site's front door sends the browser on to the home page at
            # once (<meta http-equiv="refresh">): the check follows it, so
            # that what it reads is the page the browser lands on, and a
            # redirect to a missing file fails as a failed load.
            redirects = 'http-equiv="refresh"' in path.read_text(encoding="utf-8", errors="replace")
            if redirects and not browser.wait_for("Page.loadEventFired", LOAD_TIMEOUT_S):
                problems.append(f"{name}: the page it redirects to did not finish loading in {LOAD_TIMEOUT_S} s")
                continue
            browser.drain(SETTLE_S)
            facts = json.loads(
                browser.send("Runtime.evaluate", {"expression": PAGE_FACTS_JS, "returnByValue": True})["result"]["value"]
            )
            found, outside = problems_in_events(browser.events, name)
            problems += found
            external |= outside
            anchors[path] = set(facts["anchors"])
            links += [(name, url) for url in facts["links"]]
            for image in facts["images"]:
                if not image["ok"] and (local_path(image["src"]) or not image["src"]):
                    problems.append(f"{name}: the image {image['src'] or '(no src)'} does not load")
            if options.screenshots and path.parent.parent.name == "chapters" and path.name == "index.html":
                metrics = browser.send("Page.getLayoutMetrics")
                size = metrics["cssContentSize"]
                shot = browser.send(
                    "Page.captureScreenshot",
                    {
                        "format": "jpeg",
                        "quality": 80,
                        "captureBeyondViewport": True,
                        "clip": {"x": 0, "y": 0, "width": WINDOW[0], "height": size["height"], "scale": SHOT_SCALE},
                    },
                    timeout=60,
                )
                # A translated edition's pages lie in a folder named by its
                # language (docs/conf.py): their screenshots carry its name.
                edition = path.relative_to(site).parts[0]
                prefix = "" if edition == "chapters" else edition + "-"
                (options.screenshots / f"{prefix}{path.parent.name}.jpg").write_bytes(base64.b64decode(shot["data"]))
                shots += 1
    finally:
        browser.close()

    # The links, once every page's anchors are known.
    checked = 0
    for page, url in links:
        target = local_path(url)
        if target is None:
            continue
        file, fragment = target
        checked += 1
        if not file.exists():
            problems.append(f"{page}: broken link to {url} (no such file)")
        elif fragment and file.suffix == ".html":
            if file not in anchors:
                anchors[file] = set()  # a page of the output the check did not load: none known
            if fragment not in anchors[file]:
                where = file.relative_to(site).as_posix() if file.is_relative_to(site) else file
                problems.append(f"{page}: broken link to #{fragment} in {where} (no such anchor)")

    problems = list(dict.fromkeys(problems))  # a link broken the same way twice is one problem
    for problem in problems:
        print(problem)
    seconds = time.monotonic() - started
    print(
        f"check_site: {len(pages)} pages loaded in Chromium, {checked} local links checked, "
        f"{shots} chapter screenshots, {len(external)} requests to other hosts blocked, "
        f"{len(problems)} problems, {seconds:.1f} s"
    )
    if problems:
        print(f"check_site: Chromium's own log is {log}")
        return 1
    log.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())

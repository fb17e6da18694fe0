#!/usr/bin/python3
"""A headless chromium driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: JSON messages ended by a NUL byte on fds 3 and 4,
no websocket needed), for the browser tests (tests/viewer/test_controls.py,
tests/serve/test_serve_browser.py)."""
import json
import os
import subprocess
import sys
import threading


class Chrome:
    """A headless chromium with one page, driven over --remote-debugging-pipe."""

    def __init__(self, exe, profile):
        to_r, self.to_w = os.pipe()      # our commands: chromium reads fd 3
        self.from_r, from_w = os.pipe()  # its answers and events: fd 4

        def fds():
            a, b = os.dup(to_r), os.dup(from_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.log = open(os.path.join(profile, "chrome.log"), "w")
        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-dev-shm-usage", "--remote-debugging-pipe",
             "--user-data-dir=" + profile, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
            preexec_fn=fds, close_fds=False)
        os.close(to_r)
        os.close(from_w)
        self.mu = threading.Condition()
        self.answers, self.events, self.next_id = {}, [], 0
        threading.Thread(target=self._read, daemon=True).start()
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Network", "Runtime", "Page", "Log"):
            self.call(domain + ".enable", session=True)

    def _read(self):
        buf = b""
        while True:
            data = os.read(self.from_r, 65536)
            if not data:
                break
            buf += data
            while b"\0" in buf:
                msg, buf = buf.split(b"\0", 1)
                m = json.loads(msg)
                with self.mu:
                    if "id" in m:
                        self.answers[m["id"]] = m
                    else:
                        self.events.append(m)
                    self.mu.notify_all()
        with self.mu:
            self.answers[None] = "closed"
            self.mu.notify_all()

    def call(self, method, params=None, session=False):
        with self.mu:
            self.next_id += 1
            i = self.next_id
        msg = {"id": i, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        os.write(self.to_w, json.dumps(msg).encode() + b"\0")
        with self.mu:
            ok = self.mu.wait_for(lambda: i in self.answers or None in self.answers, 300)
            if not ok or i not in self.answers:
                print("FAIL: chromium did not answer", method, flush=True)
                sys.exit(1)
            m = self.answers.pop(i)
        if "error" in m:
            print("FAIL: %s: %r" % (method, m["error"]), flush=True)
            sys.exit(1)
        return m.get("result", {})

    def eval(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True}, True)
        if "exceptionDetails" in r:
            return None
        return r["result"].get("value")

    def navigate(self, url):
        self.call("Page.navigate", {"url": url}, True)

    def urls(self):
        with self.mu:
            return [e["params"]["request"]["url"] for e in self.events
                    if e.get("method") == "Network.requestWillBeSent"]

    def errors(self):
        out = []
        with self.mu:
            for e in self.events:
                m, p = e.get("method"), e.get("params", {})
                if m == "Runtime.exceptionThrown":
                    out.append(p["exceptionDetails"].get("text", "") + " " + json.dumps(
                        p["exceptionDetails"].get("exception", {}).get("description", "")))
                elif m == "Log.entryAdded" and p["entry"]["level"] == "error":
                    # The browser asks for /favicon.ico by itself: its 404 is no page's.
                    if not p["entry"].get("url", "").endswith("/favicon.ico"):
                        out.append(p["entry"].get("text", "") + " " + p["entry"].get("url", ""))
                elif m == "Runtime.consoleAPICalled" and p.get("type") == "error":
                    out.append(json.dumps(p.get("args")))
        return out

    def close(self):
        try:
            self.call("Browser.close")
        except SystemExit:
            pass
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def viewport(self, width, height, mobile=False):
        """The window's size in CSS pixels; mobile as a phone would (the
        page's viewport meta tag then sets its layout width)."""
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
                  True)

    def click(self, x, y):
        """A left click at (x, y), CSS pixels of the window, as a mouse does it."""
        p = {"x": x, "y": y, "button": "left", "clickCount": 1}
        self.call("Input.dispatchMouseEvent", dict(p, type="mouseMoved"), True)
        self.call("Input.dispatchMouseEvent", dict(p, type="mousePressed"), True)
        self.call("Input.dispatchMouseEvent", dict(p, type="mouseReleased"), True)

    def key(self, key, code=None, vk=0, text=None):
        """One key pressed and released, sent to the focused element."""
        p = {"key": key, "code": code or key, "windowsVirtualKeyCode": vk,
             "nativeVirtualKeyCode": vk}
        down = dict(p, type="keyDown", text=text) if text else dict(p, type="rawKeyDown")
        self.call("Input.dispatchKeyEvent", down, True)
        self.call("Input.dispatchKeyEvent", dict(p, type="keyUp"), True)

"""``kbtool serve``: the server (reload script injected, 404 page, long poll) and the watcher."""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from kbtool.config import Config, config_from_table
from kbtool.serve import CLIENT_PATH, BuildVersion, make_server, watch_and_rebuild


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, BuildVersion, Path]]:
    site = tmp_path / "site"
    (site / "wiki").mkdir(parents=True)
    (site / "index.html").write_text("<html><body><h1>home</h1></body></html>")
    (site / "404.html").write_text("<html><body>not here</body></html>")
    (site / "wiki" / "a.html").write_text("<html><body>page a</body></html>")
    (site / "style.css").write_text("body{}")
    version = BuildVersion()
    server = make_server(site, 0, version)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    yield f"http://{host}:{port}", version, site
    server.shutdown()
    server.server_close()


def get(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.headers["Content-Type"], response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode()


def test_listens_on_loopback_only(served: tuple[str, BuildVersion, Path]) -> None:
    assert served[0].startswith("http://127.0.0.1:")


def test_html_pages_get_the_reload_script(served: tuple[str, BuildVersion, Path]) -> None:
    base, _, _ = served
    status, kind, body = get(base + "/")
    assert status == 200 and kind.startswith("text/html")
    assert f'<script src="{CLIENT_PATH}"></script></body>' in body
    assert get(base + "/wiki/a.html")[2].count(CLIENT_PATH) == 1
    assert get(base + "/style.css")[2] == "body{}"
    assert "fetch(" in get(base + CLIENT_PATH)[2]


def test_the_published_files_never_contain_the_script(
    served: tuple[str, BuildVersion, Path],
) -> None:
    base, _, site = served
    get(base + "/")
    assert CLIENT_PATH not in (site / "index.html").read_text()


def test_missing_pages_get_the_404_page(served: tuple[str, BuildVersion, Path]) -> None:
    status, _, body = get(served[0] + "/wiki/nope.html")
    assert status == 404 and "not here" in body


def test_paths_cannot_leave_the_site(served: tuple[str, BuildVersion, Path]) -> None:
    base, _, site = served
    (site.parent / "secret.txt").write_text("secret")
    status, _, body = get(base + "/../secret.txt")
    assert "secret" not in body or status == 404


def test_the_long_poll_answers_when_the_build_changes(
    served: tuple[str, BuildVersion, Path],
) -> None:
    base, version, _ = served
    assert get(base + "/__kbtool/wait?v=")[2] == "1"
    answers: list[str] = []
    waiter = threading.Thread(target=lambda: answers.append(get(base + "/__kbtool/wait?v=1")[2]))
    waiter.start()
    time.sleep(0.3)
    assert answers == []
    version.bump()
    waiter.join(timeout=10)
    assert answers == ["2"]


def test_a_changed_page_triggers_a_rebuild_and_a_new_version(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "wiki").mkdir(parents=True)
    (root / "wiki" / "a.md").write_text("# A\n")
    config = config_from_table(root, {})
    version = BuildVersion()
    stop = threading.Event()
    rebuilt = threading.Event()
    told: list[set[str]] = []

    def rebuild(changed: set[str]) -> bool:
        told.append(changed)
        rebuilt.set()
        return True

    watcher = threading.Thread(
        target=watch_and_rebuild, args=(config, rebuild, version, stop), daemon=True
    )
    watcher.start()
    try:
        for _ in range(20):  # the watcher needs a moment to start; touch until it notices
            (root / "wiki" / "a.md").write_text(f"# A\n\n{time.time()}\n")
            if rebuilt.wait(0.5):
                break
        assert rebuilt.is_set()
        assert str(root / "wiki" / "a.md") in told[0]  # what changed, for the scan
        deadline = time.time() + 5
        while version.value == 1 and time.time() < deadline:
            time.sleep(0.05)
        assert version.value >= 2
    finally:
        stop.set()
        watcher.join(timeout=10)


def test_kbtool_serve_builds_and_serves(tmp_path: Path) -> None:
    import re
    import subprocess
    import sys

    root = tmp_path / "repo"
    (root / "wiki").mkdir(parents=True)
    (root / "wiki" / "a.md").write_text(
        "---\ntype: concept\nsummary: s\nupdated: 2020-01-01\n---\n# Page A\n"
    )
    (root / "pyproject.toml").write_text('[tool.kbtool]\nseverity = { KB3 = "off" }\n')
    process = subprocess.Popen(
        [sys.executable, "-m", "kbtool", "-C", str(root), "serve", "--port", "0", "-j", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = None
        deadline = time.time() + 60
        while time.time() < deadline:
            line = process.stdout.readline()
            match = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
            if match:
                url = match.group(1)
                break
            if not line and process.poll() is not None:
                break
        assert url, "serve did not start"
        status, _, body = get(url + "wiki/a.html")
        assert status == 200 and "Page A" in body and CLIENT_PATH in body
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_the_watcher_sees_folders_moved_in_and_ignores_its_own_output(tmp_path: Path) -> None:
    from kbtool.serve import _relevant

    config = Config(root=tmp_path)
    keep = _relevant(config)
    assert keep(None, str(tmp_path / "wiki" / "moved-folder"))  # no extension: a folder
    assert keep(None, str(tmp_path / "wiki" / "a.md"))
    assert keep(None, str(tmp_path / "pyproject.toml"))
    assert not keep(None, str(tmp_path / "site" / "index.html"))
    assert not keep(None, str(config.cache_path / "store.sqlite-wal"))
    # a vault's root is watched: the build's staging folders beside the site are its own too
    assert not keep(None, str(tmp_path / ".site.build-x1y2" / "Notes" / "a.html"))
    assert not keep(None, str(tmp_path / "site"))
    assert keep(None, str(tmp_path / "sites" / "a.md"))  # a folder of notes named alike


def test_the_watcher_reports_changes_made_before_it_is_asked(tmp_path: Path) -> None:
    # Made before the first build, it reports what changed while that build ran.
    from kbtool.serve import Watcher

    (tmp_path / "wiki").mkdir()
    config = Config(root=tmp_path)
    watcher = Watcher(config)
    page = tmp_path / "wiki" / "a.md"
    page.write_text("# A\n")
    time.sleep(0.3)  # the build
    stop = threading.Event()
    timer = threading.Timer(10, stop.set)  # never waits for ever: the batches end
    timer.start()
    try:
        batch = next(watcher.batches(stop), set())
    finally:
        timer.cancel()
        watcher.close()
    assert str(page) in batch


def test_a_served_page_is_given_its_diagnostics(tmp_path: Path) -> None:
    from kbtool.diagnostics import Diagnostic
    from kbtool.served_problems import ServedProblems

    (tmp_path / "wiki").mkdir()
    problems = ServedProblems()
    problems.update([Diagnostic("wiki/a.md", 2, 1, "KB111", "warning", "empty")], None, [])
    server = make_server(tmp_path, 0, BuildVersion(), problems=problems)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        status, kind, body = get(base + "/__kbtool/problems?page=/wiki/a.html")
        assert status == 200 and kind.startswith("application/json")
        assert '"KB111"' in body and '"blocked": null' in body
    finally:
        server.shutdown()
        server.server_close()


PAGE = "---\ntype: concept\nsummary: {summary}\nupdated: 2020-01-01\n---\n# Page {name}\n"


def test_after_a_save_serve_prints_what_it_changed(tmp_path: Path) -> None:
    import json
    import queue
    import subprocess
    import sys

    root = tmp_path / "repo"
    (root / "wiki").mkdir(parents=True)
    (root / "wiki" / "a.md").write_text(PAGE.format(summary="s", name="A"))
    (root / "wiki" / "b.md").write_text(PAGE.format(summary='""', name="B"))  # KB111
    (root / "pyproject.toml").write_text('[tool.kbtool]\nseverity = { KB3 = "off" }\n')
    process = subprocess.Popen(
        [sys.executable, "-m", "kbtool", "-C", str(root), "serve", "--port", "0", "-j", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    assert process.stdout is not None
    out = process.stdout
    threading.Thread(target=lambda: [lines.put(line) for line in out], daemon=True).start()

    def until(word: str) -> list[str]:
        seen: list[str] = []
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                seen.append(lines.get(timeout=1))
            except queue.Empty:
                continue
            if word in seen[-1]:
                return seen
        raise AssertionError(f"serve never printed {word!r}: {seen}")

    try:
        first = until("serving ")
        assert any("wiki/b.md" in line and "KB111" in line for line in first)
        base = first[-1].split(" at ")[1].split()[0].rstrip("/")
        time.sleep(0.5)  # the watcher starts
        before = int(get(base + "/__kbtool/wait?v=")[2])
        reloaded: list[dict[str, object]] = []

        def browser() -> None:  # reloads when told, then asks for the page's problems
            get(f"{base}/__kbtool/wait?v={before}")
            reloaded.append(json.loads(get(base + "/__kbtool/problems?page=/wiki/a.html")[2]))

        waiting = threading.Thread(target=browser, daemon=True)
        waiting.start()
        (root / "wiki" / "a.md").write_text(PAGE.format(summary='""', name="A"))
        saved = until(" changed: ")
        more = [saved[-1]]
        time.sleep(1)
        while not lines.empty():
            more.append(lines.get())
        assert "wiki/a.md changed: published" in more[0], more
        assert "diagnostics: 1 new, 0 gone, 1 as before" in more[0]
        assert [line.split(": KB")[0] for line in more[1:]] == ["  + wiki/a.md:3:1"]
        assert "KB111 warning" in more[1]
        assert not any("wiki/b.md" in line for line in more)  # the rest is only counted
        problems = json.loads(get(base + "/__kbtool/problems?page=/wiki/a.html")[2])
        assert [d["code"] for d in problems["diagnostics"]] == ["KB111"]
        assert problems["blocked"] is None
        # Told once, at the swap: the reloaded page got the new build's problems, not the old.
        waiting.join(timeout=10)
        assert reloaded == [problems]
        assert int(get(base + "/__kbtool/wait?v=")[2]) == before + 1

        (root / "wiki" / "a.md").write_text("---\ntype: [\n---\n# A\n")  # KB103: stops the site
        stopped = until(" changed: ")[-1]
        assert "not published" in stopped
        deadline = time.time() + 10
        blocked = None
        while blocked is None and time.time() < deadline:
            blocked = json.loads(get(base + "/__kbtool/problems?page=/wiki/b.html")[2])["blocked"]
        assert blocked is not None and blocked["errors"][0]["path"] == "wiki/a.md"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_browser_that_leaves_during_the_long_poll_prints_nothing(
    served: tuple[str, BuildVersion, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    base, version, _ = served
    port = int(base.rsplit(":", 1)[1])
    client = socket.create_connection(("127.0.0.1", port))
    client.sendall(b"GET /__kbtool/wait?v=1 HTTP/1.1\r\nHost: x\r\n\r\n")
    time.sleep(0.3)  # the server now waits for a newer build
    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    client.close()  # reset: the tab was closed
    version.bump()
    time.sleep(0.5)  # the server answers, to no one
    assert "Traceback" not in capsys.readouterr().err

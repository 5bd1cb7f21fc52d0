"""What kbtool says about containment on a machine, from the Landlock ABI and the settings."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kbtool.config import config_from_table
from kbtool.execute import landlock
from kbtool.execute.containment import TEST_ABI, Containment, probe, refusal, warning


def test_the_rights_grow_with_the_abi() -> None:
    assert landlock.fs_rights(1) == (1 << 13) - 1
    assert landlock.fs_rights(2) & landlock.REFER and not landlock.fs_rights(1) & landlock.REFER
    assert landlock.fs_rights(3) & landlock.TRUNCATE
    assert not landlock.fs_rights(4) & landlock.IOCTL_DEV
    assert landlock.fs_rights(5) & landlock.IOCTL_DEV


@pytest.mark.parametrize(
    ("abi", "root", "off"),
    [
        (7, False, []),
        (4, False, []),
        (3, False, ["network"]),
        (3, True, []),
        (0, True, ["files"]),
        (0, False, ["files", "network"]),
    ],
)
def test_what_is_off(abi: int, root: bool, off: list[str]) -> None:
    status = Containment("auto", abi, None if abi else "no Landlock here", root)
    assert [item.split()[0] for item in status.off()] == off
    message = warning(status)
    assert (message is None) == (not off)
    if message is not None:
        assert message.startswith("KB411 warning cells are not fully contained")
        assert 'sandbox = "required" refuses' in message


def test_required_refuses_only_without_landlock() -> None:
    assert refusal(Containment("required", 4, None, False)) is None
    assert refusal(Containment("auto", 0, "old kernel", False)) is None
    reason = refusal(Containment("required", 0, "old kernel", False))
    assert reason == 'not run: sandbox = "required" but old kernel'


def test_the_test_variable_only_takes_protections_away(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = config_from_table(tmp_path, {})
    monkeypatch.setenv(TEST_ABI, "99")
    assert probe(config).abi == landlock.abi_version()
    monkeypatch.setenv(TEST_ABI, "0")
    status = probe(config)
    assert status.abi == 0 and status.reason == f"{TEST_ABI}=0"
    off = probe(config_from_table(tmp_path, {"sandbox": "off"}))
    assert off.abi == 0 and off.reason == 'sandbox = "off" in the configuration'


def test_a_missing_path_needs_no_rule() -> None:
    if not landlock.abi_version():
        pytest.skip(f"needs Landlock: {landlock.unavailable_reason()}")
    abi = landlock.abi_version()
    ruleset = landlock.Ruleset(abi, landlock.fs_rights(abi))
    try:
        assert ruleset.allow("/usr", landlock.READ)
        assert ruleset.allow("/etc/passwd", landlock.READ)  # a file: file rights only
        assert not ruleset.allow("/no/such/path", landlock.READ)
    finally:
        os.close(ruleset.fd)

"""The README documents every diagnostic code and every configuration key."""

from __future__ import annotations

import re
from pathlib import Path

from kbtool.codes import RULES
from kbtool.config import SCHEMA

README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")


def test_every_code_has_a_row_with_its_default_severity() -> None:
    rows = dict(re.findall(r"^\| (KB\d{3}) \| (\w+) \|", README, flags=re.M))
    assert rows == {code: rule.severity for code, rule in RULES.items()}


def test_every_configuration_key_is_documented() -> None:
    documented = set(re.findall(r"^\| `([a-z\-]+)` \|", README, flags=re.M))
    assert set(SCHEMA) <= documented

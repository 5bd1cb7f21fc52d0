"""kbtool's side of containment: what this machine enforces, and the warning when it cannot.

``kbtool test``, ``kbtool build`` and the pytest plugin say once, before cells run, which
protections are off and why (KB411). With ``sandbox = "required"`` pages are not run at all
where Landlock is missing; each fails with KB412.

    >>> status = Containment(mode="auto", abi=0, reason="kernel 4.19 has no Landlock", root=False)
    >>> status.contained, status.off()[0].startswith("files")
    (False, True)
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from kbtool.config import Config
from kbtool.execute import landlock


@dataclass(frozen=True, slots=True)
class Containment:
    mode: str  # the `sandbox` setting
    abi: int  # the Landlock ABI that will be used; 0 for none
    reason: str | None  # why Landlock is not used, if it is not
    root: bool  # the worker can leave the network (an empty namespace) as root

    @property
    def contained(self) -> bool:
        return self.abi > 0

    def off(self) -> list[str]:
        """The protections that are off, each with what that means."""
        off = []
        if not self.abi:
            off.append("files (cells can read and write whatever this user can)")
        if self.abi < 4 and not self.root:
            level = f"Landlock ABI {self.abi} has no TCP rules" if self.abi else "no Landlock"
            off.append(f"network ({level}: only Python's socket module refuses connections)")
        return off  # signals are scoped from ABI 6 on: a bonus, not worth a warning without


#: Tests of the fallback set this to pretend the kernel speaks at most this Landlock ABI
#: (0: none). It can only take protections away, and the warning still says so.
TEST_ABI = "KBTOOL_TEST_LANDLOCK_ABI"


def probe(config: Config) -> Containment:
    abi = landlock.abi_version() if config.sandbox != "off" else 0
    reason = None
    pretend = os.environ.get(TEST_ABI, "")
    if pretend.isdigit() and int(pretend) < abi:
        abi = int(pretend)
        reason = f"{TEST_ABI}={pretend}" if not abi else None
    if config.sandbox == "off":
        reason = 'sandbox = "off" in the configuration'
    elif not abi and reason is None:
        reason = landlock.unavailable_reason()
    return Containment(config.sandbox, abi, reason, root=os.geteuid() == 0)


def warning(status: Containment) -> str | None:
    """The KB411 line, or None when every protection is on."""
    off = status.off()
    if not off:
        return None
    why = f" ({status.reason})" if status.reason else ""
    hint = "" if status.mode == "off" else '; sandbox = "required" refuses to run pages so'
    return f"KB411 warning cells are not fully contained{why}: off: {'; '.join(off)}{hint}"


def refusal(status: Containment) -> str | None:
    """Why pages must not run (``sandbox = "required"`` without Landlock), or None."""
    if status.mode != "required" or status.contained:
        return None
    return f'not run: sandbox = "required" but {status.reason}'

"""The one layer for every value kbtool reuses between stages, builds or keystrokes.

A reused value is declared once (:class:`~kbtool.reuse.values.Reusable`: its name, what its
key is made of, where it lives) and held in a :class:`~kbtool.reuse.values.Reuse` by name and
key; it is valid while the key asked with equals the key it was made with, and in no other
way. A one-shot command holds a new :class:`Reuse` for one run; a session (``kbtool serve``,
``kbtool lsp``) holds one for its life, so the stages never learn who holds them.
:mod:`~kbtool.reuse.lazy` is the one mapping of values got when first asked for.
"""
